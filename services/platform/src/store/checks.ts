import type { Doc, Filter, IndexOptions, IndexSpec, PageOptions, Update } from "./port";
import { IndexConflictError, UnsupportedQueryError } from "./port";

// Shared guards and helpers of both adapters, so the port refuses the same inputs whichever runs.

const FILTER_OPS = new Set(["$in", "$nin", "$ne", "$gt", "$gte", "$lt", "$lte", "$exists", "$regex", "$elemMatch", "$size"]);
const LOGICAL_OPS = new Set(["$and", "$or"]);
const UPDATE_OPS = new Set(["$set", "$unset", "$inc", "$push", "$pull", "$addToSet"]);

/** Objects the adapters walk into; Dates, RegExps and other class instances are values. */
const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

// MongoDB reads `undefined` in a filter as null ("missing or null"), nedb as matching nothing: one adapter
// would update or delete documents the other leaves alone. Refused at any depth, naming where it was.
const assertNoUndefined = (value: unknown, path: string): void => {
  if (value === undefined) {
    throw new UnsupportedQueryError(`undefined at ${path} in a filter (use { $exists: false } or null)`);
  }
  if (Array.isArray(value)) value.forEach((v, i) => assertNoUndefined(v, `${path}.${i}`));
  else if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) assertNoUndefined(v, path ? `${path}.${k}` : k);
};

export const assertFilter = (filter: Filter): void => {
  assertNoUndefined(filter, "");
  assertFilterOperators(filter);
};

const assertFilterOperators = (filter: Filter): void => {
  for (const [key, value] of Object.entries(filter)) {
    if (key.startsWith("$")) {
      if (!LOGICAL_OPS.has(key)) throw new UnsupportedQueryError(`filter operator ${key}`);
      if (!Array.isArray(value)) throw new UnsupportedQueryError(`${key} takes an array`);
      value.forEach((f) => assertFilterOperators(f as Filter));
      continue;
    }
    if (value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date) && !(value instanceof RegExp)) {
      const ops = Object.keys(value);
      if (ops.some((o) => o.startsWith("$"))) {
        for (const op of ops) if (!FILTER_OPS.has(op)) throw new UnsupportedQueryError(`filter operator ${op} on ${key}`);
      }
    }
  }
};

export const assertUpdate = (update: Update): void => {
  const keys = Object.keys(update);
  if (keys.length === 0) throw new UnsupportedQueryError("an empty update");
  for (const key of keys) {
    if (!UPDATE_OPS.has(key)) throw new UnsupportedQueryError(`update operator ${key} (updates must use operators)`);
    const fields = (update as Record<string, Record<string, unknown>>)[key] ?? {};
    // _id is the identity and _v belongs to the adapters (every update bumps it): no operator may touch
    // either, nor a path inside them.
    for (const path of Object.keys(fields)) {
      const root = path.split(".")[0];
      if (root === "_id") throw new UnsupportedQueryError("changing _id");
      if (root === "_v") throw new UnsupportedQueryError("changing _v directly");
    }
  }
};

// A written document holds no `undefined`: MongoDB would store null (which sparse indexes do index and
// `$exists` does match), nedb keeps it in memory but not on disk. Fields are left out instead; inside an
// array there is no leaving out (MongoDB and nedb's file would both turn it into null), so it is refused.
// Every written document passes through here, so the walk builds no path strings: the path is only
// worked out, by a second walk, for the error message of a document that is refused.
const UNDEFINED_IN_ARRAY = Symbol("undefined inside an array");

const strip = (value: unknown): unknown => {
  if (Array.isArray(value)) {
    return value.map((v) => {
      if (v === undefined) throw UNDEFINED_IN_ARRAY;
      return strip(v);
    });
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = value[k];
    if (v !== undefined) out[k] = strip(v);
  }
  return out;
};

/** The path of the first array (in strip's order) holding an undefined element. */
const arrayWithUndefined = (value: unknown, path: string): string | undefined => {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (value[i] === undefined) return path;
      const found = arrayWithUndefined(value[i], `${path}.${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const found = v === undefined ? undefined : arrayWithUndefined(v, path ? `${path}.${k}` : k);
    if (found !== undefined) return found;
  }
  return undefined;
};

const stripUndefined = (value: unknown, path: string): unknown => {
  try {
    return strip(value);
  } catch (err) {
    if (err !== UNDEFINED_IN_ARRAY) throw err;
    throw new UnsupportedQueryError(`undefined inside the array at ${arrayWithUndefined(value, path) ?? path}`);
  }
};

/** The document as every adapter stores it: without its undefined fields, at any depth. */
export const withoutUndefined = <T extends Doc>(doc: T): T => stripUndefined(doc, "") as T;

/**
 * Checks an update and gives it the port's meaning of `undefined`: `$set: { f: undefined }` unsets `f`
 * (the field ends absent, as it would be in a document inserted with it), undefined inside a set value is
 * left out, and undefined as the operand of `$inc $push $pull $addToSet` is refused.
 */
export const normalizeUpdate = (update: Update): Update => {
  assertUpdate(update);
  const out: Update = {};
  for (const [op, fields] of Object.entries(update) as Array<[keyof Update, Record<string, unknown>]>) {
    if (op === "$unset") {
      out.$unset = { ...(out.$unset ?? {}), ...fields };
      continue;
    }
    const kept: Record<string, unknown> = {};
    for (const [path, value] of Object.entries(fields)) {
      if (value === undefined) {
        if (op !== "$set") throw new UnsupportedQueryError(`undefined as the ${op} value of ${path}`);
        out.$unset = { ...(out.$unset ?? {}), [path]: true };
      } else {
        kept[path] = stripUndefined(value, path);
      }
    }
    if (Object.keys(kept).length > 0) (out as Record<string, unknown>)[op] = kept;
  }
  return out;
};

/** The options of an index spec with the defaults spelled out, to compare with an existing index. */
export const indexOptionsOf = (spec: IndexSpec): IndexOptions => ({
  unique: spec.unique ?? false,
  sparse: spec.sparse ?? false,
  ...(spec.expireAfterSeconds !== undefined ? { expireAfterSeconds: spec.expireAfterSeconds } : {}),
});

/**
 * What ensureIndex does over an existing index on the same fields, the same on every adapter: nothing when
 * the options are the same; change the expiry in place when only its seconds differ; refuse anything else.
 */
export const reconcileIndex = (
  collection: string,
  spec: IndexSpec,
  existing: IndexOptions,
): { action: "none" } | { action: "set-expiry"; expireAfterSeconds: number } => {
  const requested = indexOptionsOf(spec);
  const expiring = (o: IndexOptions) => o.expireAfterSeconds !== undefined;
  if (existing.unique !== requested.unique || existing.sparse !== requested.sparse || expiring(existing) !== expiring(requested)) {
    throw new IndexConflictError(collection, Object.keys(spec.fields), existing, requested);
  }
  if (requested.expireAfterSeconds !== undefined && requested.expireAfterSeconds !== existing.expireAfterSeconds) {
    return { action: "set-expiry", expireAfterSeconds: requested.expireAfterSeconds };
  }
  return { action: "none" };
};

/** Upserts must name the document's `_id` by equality, so both adapters create the same id. */
export const assertUpsertFilter = (filter: Filter): void => {
  if (typeof filter._id !== "string") throw new UnsupportedQueryError("an upsert whose filter does not name _id");
};

export const assertIndex = (spec: IndexSpec): void => {
  const fields = Object.keys(spec.fields);
  if (fields.length === 0) throw new UnsupportedQueryError("an index without fields");
  if (spec.expireAfterSeconds !== undefined && fields.length !== 1) throw new UnsupportedQueryError("a compound TTL index");
  if (spec.text !== undefined && (!fields.includes(spec.text) || spec.text === "_id" || spec.unique || spec.expireAfterSeconds !== undefined)) {
    throw new UnsupportedQueryError(`a text index on ${JSON.stringify(spec.text)} (one of its fields, not _id, not unique, no expiry)`);
  }
  if (spec.expireAfterSeconds !== undefined && (!Number.isInteger(spec.expireAfterSeconds) || spec.expireAfterSeconds < 0)) {
    throw new UnsupportedQueryError(`expireAfterSeconds ${spec.expireAfterSeconds}`);
  }
};

export const assertPageLimit = (options: PageOptions): void => {
  if (!Number.isInteger(options.limit) || options.limit < 1 || options.limit > 1000) {
    throw new UnsupportedQueryError(`page limit ${options.limit}`);
  }
};

/** Reads a possibly dotted path out of a document. */
export const readPath = (doc: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), doc);

// Cursor = the last item's sort value and _id, JSON with Dates tagged, base64url so clients treat it as opaque.
type CursorValue = string | number | boolean | null | { $date: string };

export const encodeCursor = (value: unknown, id: string): string => {
  const v: CursorValue = value instanceof Date ? { $date: value.toISOString() } : ((value ?? null) as CursorValue);
  return Buffer.from(JSON.stringify([v, id])).toString("base64url");
};

export class InvalidCursorError extends Error {
  constructor() {
    super("The cursor is not one this list returned.");
    this.name = "InvalidCursorError";
  }
}

const isScalar = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));

// The value goes into a filter, so only what encodeCursor writes is let through: an object or array a
// client made up would be read as operators (`{"$in":1}`) and fail inside the driver.
const cursorValue = (raw: unknown): string | number | boolean | null | Date => {
  if (isScalar(raw)) return raw;
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const keys = Object.keys(raw);
    const date = (raw as { $date?: unknown }).$date;
    if (keys.length === 1 && typeof date === "string") {
      const value = new Date(date);
      if (!Number.isNaN(value.getTime()) && value.toISOString() === date) return value;
    }
  }
  throw new Error("value");
};

export const decodeCursor = (cursor: string): { value: unknown; id: string } => {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[1] !== "string") throw new Error("shape");
    return { value: cursorValue(parsed[0]), id: parsed[1] };
  } catch {
    throw new InvalidCursorError();
  }
};

/** The filter selecting documents strictly after the cursor position in (sortField, _id) order. */
export const afterCursorFilter = (cursor: string, sortField: string, direction: 1 | -1): Filter => {
  const { value, id } = decodeCursor(cursor);
  const cmp = direction === 1 ? "$gt" : "$lt";
  if (sortField === "_id") return { _id: { [cmp]: id } };
  return { $or: [{ [sortField]: { [cmp]: value } }, { [sortField]: value, _id: { [cmp]: id } }] };
};

export const pageSort = (options: PageOptions): { field: string; direction: 1 | -1 } => ({
  field: options.sortField ?? "_id",
  direction: options.direction ?? 1,
});

/**
 * Cursor paging on top of an adapter's `find`, the same for every adapter: one more row than the page
 * is read to know whether another page follows.
 */
export const findPageWith = async <T extends { _id: string }>(
  find: (filter: Filter, options: { sort: Record<string, 1 | -1>; limit: number }) => Promise<T[]>,
  filter: Filter,
  options: PageOptions,
): Promise<{ items: T[]; nextCursor: string | null }> => {
  assertFilter(filter);
  assertPageLimit(options);
  const { field, direction } = pageSort(options);
  const query = options.cursor ? { $and: [filter, afterCursorFilter(options.cursor, field, direction)] } : filter;
  const sort: Record<string, 1 | -1> = field === "_id" ? { _id: direction } : { [field]: direction, _id: direction };
  const rows = await find(query, { sort, limit: options.limit + 1 });
  const items = rows.slice(0, options.limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > options.limit && last ? encodeCursor(readPath(last, field), last._id) : null };
};
