// How a stored document's text becomes a document again. The rows hold nedb's serialization (JSON, a Date
// written as `{"$$date": <ms>}`), read back by nedb's `deserialize` before: a JSON.parse with a reviver,
// which calls back into JavaScript for every value of every document read. That was a third of a
// 25-mention page's processor time. Parsing without a reviver and replacing the dates in a walk gives the
// same document (a test compares the two on generated documents) at a fraction of the cost, and a document
// without any date is not walked at all.

const DATE_KEY = "$$date";
const DATE_MARK = '"$$date"';

/** The document nedb's `deserialize` gives for `raw`: any object holding a `$$date` key is that Date. */
export const reviveDocument = (raw: string): unknown => {
  const parsed: unknown = JSON.parse(raw);
  return raw.includes(DATE_MARK) ? revive(parsed) : parsed;
};

/** Replaces the dates inside `value` in place; returns `value`, or the Date it stands for. */
const revive = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (v !== null && typeof v === "object") value[i] = revive(v);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, DATE_KEY)) return new Date(record[DATE_KEY] as number);
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (v === null || typeof v !== "object") continue;
    const revived = revive(v);
    // Only a date is a new value; `__proto__` (a key JSON may hold) is defined, never assigned.
    if (revived !== v) Object.defineProperty(record, key, { value: revived, writable: true, enumerable: true, configurable: true });
  }
  return record;
};

// The writing side, for the same reason: nedb's `serialize` is a JSON.stringify whose replacer (a key check
// and a date test) is called back for every key and array element of every document written, which was
// the largest part of a mention's insert. This writes the same text from a walk in JavaScript; anything
// that is not plain data (a class instance, a value with its own toJSON, a bigint) is left to nedb's
// own serializer, so the text is always exactly what nedb would write (a seeded test compares the two).

const NOT_PLAIN = Symbol("not plain data");

const checkKey = (key: string, value: unknown): void => {
  if (
    key[0] === "$" &&
    !(key === DATE_KEY && typeof value === "number") &&
    !(key === "$$deleted" && value === true) &&
    key !== "$$indexCreated" &&
    key !== "$$indexRemoved"
  ) {
    throw new Error("Field names cannot begin with the $ character");
  }
  if (key.includes(".")) throw new Error("Field names cannot contain a .");
};

/** The JSON of `value` as nedb writes it; undefined where JSON leaves a value out. */
const write = (value: unknown): string | undefined => {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "object":
      break;
    default:
      throw NOT_PLAIN;
  }
  if (value === null) return "null";
  if (value instanceof Date) {
    const ms = value.getTime();
    return Number.isNaN(ms) ? "null" : `{"${DATE_KEY}":${ms}}`;
  }
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += `${i === 0 ? "" : ","}${write(value[i]) ?? "null"}`;
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (
    (proto !== Object.prototype && proto !== null) ||
    typeof (value as { toJSON?: unknown }).toJSON === "function" || typeof (value as { getTime?: unknown }).getTime === "function") {
    // nedb takes anything with a getTime method for a date.
    throw NOT_PLAIN;
  }
  const record = value as Record<string, unknown>;
  let out = "{";
  let first = true;
  for (const key of Object.keys(record)) {
    const v = record[key];
    checkKey(key, v);
    const text = write(v);
    if (text === undefined) continue;
    out += `${first ? "" : ","}${JSON.stringify(key)}:${text}`;
    first = false;
  }
  return `${out}}`;
};

/** The text nedb's `serialize` gives for `doc` (and the same errors for a `$` or `.` in a field name). */
export const serializeDocument = (doc: unknown, fallback: (doc: unknown) => string): string => {
  try {
    return write(doc) ?? fallback(doc);
  } catch (err) {
    if (err === NOT_PLAIN) return fallback(doc);
    throw err;
  }
};
