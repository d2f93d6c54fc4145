// zod writes a nullable string as `type: ["string", "null"]`. That is valid JSON Schema 2020-12, but
// clients that map tool schemas onto a one-`type` dialect (the OpenAPI subset of Gemini function
// declarations, for one) reject or flatten it, and MCP Inspector's `--strict` flags it. Every schema the
// edge publishes therefore says the same thing with `anyOf` branches of one type each.

type Json = Record<string, unknown>;

/** Keywords that describe the value as a whole and stay beside `anyOf` rather than inside a branch. */
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly"]);

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A copy of `schema` in which no `type` is an array. */
export const singleTypes = <T>(schema: T): T => {
  if (Array.isArray(schema)) return schema.map((s) => singleTypes(s)) as T;
  if (!isObject(schema)) return schema;
  const node: Json = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, singleTypes(v)]));
  if (!Array.isArray(node.type)) return node as T;
  const { type, ...rest } = node;
  const outer: Json = {};
  const constraints: Json = {};
  for (const [k, v] of Object.entries(rest)) (ANNOTATIONS.has(k) ? outer : constraints)[k] = v;
  // Constraints such as format or maxLength apply only to the values of their own type; JSON Schema
  // ignores them for the others, so each non-null branch keeps them all.
  const branches = (type as string[]).map((t) => (t === "null" ? { type: "null" } : { type: t, ...constraints }));
  return { ...outer, anyOf: branches } as T;
};
