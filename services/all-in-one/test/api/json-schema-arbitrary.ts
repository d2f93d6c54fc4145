import fc from "fast-check";

// Values a JSON Schema accepts, generated from the schema alone, for the subset the API document uses:
// const, enum, anyOf, strings (minLength, maxLength, pattern, format date-time and email), integers and
// numbers (minimum, maximum), booleans, null, arrays (items, minItems, maxItems, uniqueItems) and objects
// (properties, required). A keyword it does not know is an error, so a schema the generator cannot honour
// is noticed instead of being fuzzed with values it never meant to allow.

export interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** Keywords that only annotate (no value is refused for them). */
const ANNOTATIONS = new Set(["description", "default", "title", "examples", "readOnly", "writeOnly", "deprecated"]);
const KNOWN = new Set([...ANNOTATIONS, ...["type", "const", "enum", "anyOf", "properties", "required", "additionalProperties", "items"]].concat(
  ["minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern", "format", "minimum", "maximum"],
));

/** Most items an array gets, whatever maxItems allows: enough to meet uniqueness and list rules. */
const MAX_GENERATED_ITEMS = 4;

const codePoints = (s: string) => [...s].length;

/** Any text (every code point, grapheme clusters, plain ASCII) of min to max code points, often at the limit. */
const anyText = (min: number, max: number): fc.Arbitrary<string> => {
  const units = ["binary", "grapheme", "grapheme-ascii"] as const;
  const sized = (lo: number, hi: number) => fc.oneof(...units.map((unit) => fc.string({ unit, minLength: lo, maxLength: hi })));
  // fast-check counts graphemes for "grapheme": keep the code points the schema counts within bounds.
  const ranged = (a: fc.Arbitrary<string>) => a.filter((s) => codePoints(s) >= min && codePoints(s) <= max);
  return fc.oneof(ranged(sized(min, Math.min(max, min + 12))), ranged(sized(Math.max(min, max - 3), max)));
};

const stringOf = (schema: JsonSchema): fc.Arbitrary<string> => {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Math.max(min, 64);
  const inLength = (s: string) => codePoints(s) >= min && codePoints(s) <= max;
  if (schema.format === "date-time") {
    const re = new RegExp(schema.pattern ?? ".", "u");
    return fc
      .date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString())
      .filter((s) => inLength(s) && re.test(s));
  }
  if (schema.format === "email") {
    // RFC 5322's ASCII addresses, the ones `format: email` describes; the published pattern must hold too.
    const re = new RegExp(schema.pattern ?? ".", "u");
    return fc.emailAddress().filter((s) => inLength(s) && re.test(s));
  }
  if (schema.format !== undefined) throw new Error(`no generator for format ${schema.format}`);
  if (schema.pattern === undefined) return anyText(min, max);
  const re = new RegExp(schema.pattern, "u");
  // An anchored pattern describes the whole text: generate from it. An unanchored one (\S) asks for
  // something somewhere: any text that has it.
  return schema.pattern.startsWith("^") ? fc.stringMatching(re).filter(inLength) : anyText(min, max).filter((s) => re.test(s));
};

const objectOf = (schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> => {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, arbitraryOf(property)]));
  return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in properties) }) as fc.Arbitrary<Record<string, unknown>>;
};

export const arbitraryOf = (schema: JsonSchema): fc.Arbitrary<unknown> => {
  const unknown = Object.keys(schema).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) throw new Error(`no generator for ${unknown.join(", ")} in ${JSON.stringify(schema)}`);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(arbitraryOf));
  switch (schema.type) {
    case "string":
      return stringOf(schema);
    case "integer":
      return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = arbitraryOf(schema.items ?? {});
      const bounds = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? MAX_GENERATED_ITEMS, MAX_GENERATED_ITEMS) };
      return schema.uniqueItems ? fc.uniqueArray(items, { ...bounds, selector: (v) => JSON.stringify(v) }) : fc.array(items, bounds);
    }
    case "object":
      return objectOf(schema);
    default:
      throw new Error(`no generator for type ${String(schema.type)}`);
  }
};
