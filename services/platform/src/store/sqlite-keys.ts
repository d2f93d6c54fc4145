import type { Filter } from "./port";

// How the SQLite adapter reads a document field in SQL, and which part of a filter it can hand to SQLite.
//
// Documents are stored as JSON text (nedb's serialization: a Date is `{"$$date": <ms>}`). The key of a field
// is one SQL value per document that sorts and compares like the port's values of one type: missing and null
// are -Infinity (first, and equal to each other, as MongoDB's unique indexes treat them), numbers and
// booleans are numbers, a Date is its milliseconds, strings are text, objects and arrays are their JSON
// as a blob (after text, never equal to a scalar). Indexes are built on exactly these expressions, so a
// query written with the same expression uses them, in WHERE and in ORDER BY.
//
// SQL only narrows: every row it returns is still tested with the port's matcher, so a translated filter
// need only be a superset of the real one. It is used only for fields that are indexed and have never
// held an array anywhere along their path (an array makes MongoDB match by element, which one key per
// document cannot express).

export const NULL_KEY = -Infinity;

const jsonPath = (field: string): string => `$.${field.split(".").map((p) => `"${p.replace(/"/g, '""')}"`).join(".")}`;

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The SQL expression of a field's key (see above); `_id` is its own column. */
export const keyExpr = (field: string): string => {
  if (field === "_id") return "id";
  const p = sqlString(jsonPath(field));
  const date = sqlString(`${jsonPath(field)}."$$date"`);
  return (
    `(CASE json_type(doc, ${p}) WHEN 'object' THEN ifnull(json_extract(doc, ${date}), CAST(json_extract(doc, ${p}) AS BLOB)) ` +
    `WHEN 'array' THEN CAST(json_extract(doc, ${p}) AS BLOB) WHEN 'null' THEN -9e999 ELSE ifnull(json_extract(doc, ${p}), -9e999) END)`
  );
};

/** The SQL value of a filter scalar, or undefined when it has none (objects, arrays, RegExps). */
export const keyValue = (v: unknown): string | number | undefined => {
  if (v === null) return NULL_KEY;
  if (v instanceof Date) return v.getTime();
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string") return v;
  return undefined;
};

export interface SqlCondition {
  sql: string;
  params: Array<string | number>;
}

const RANGE: Record<string, string> = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };

type Bound = { value: string | number; inclusive: boolean };

/** The bounds a branch of an `$or` sets on each usable field at its top level (an equality is both). */
const boundsOf = (branch: Filter, usable: (field: string) => boolean): Map<string, { lo?: Bound; hi?: Bound }> => {
  const out = new Map<string, { lo?: Bound; hi?: Bound }>();
  for (const [key, value] of Object.entries(branch)) {
    if (key.startsWith("$") || (key !== "_id" && !usable(key))) continue;
    const scalar = value === null ? undefined : keyValue(value);
    if (scalar !== undefined) {
      out.set(key, { lo: { value: scalar, inclusive: true }, hi: { value: scalar, inclusive: true } });
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof RegExp) continue;
    const b: { lo?: Bound; hi?: Bound } = {};
    for (const [op, operand] of Object.entries(value as Record<string, unknown>)) {
      const v = operand === null ? undefined : keyValue(operand);
      if (v === undefined) continue;
      if (op === "$gt" || op === "$gte") b.lo = { value: v, inclusive: op === "$gte" };
      if (op === "$lt" || op === "$lte") b.hi = { value: v, inclusive: op === "$lte" };
    }
    if (b.lo || b.hi) out.set(key, b);
  }
  return out;
};

/** The wider of two bounds of one type (`upper`: the larger), or undefined when their types differ. */
const wider = (a: Bound, b: Bound, upper: boolean): Bound | undefined => {
  if (typeof a.value !== typeof b.value) return undefined;
  if (a.value === b.value) return { value: a.value, inclusive: a.inclusive || b.inclusive };
  return (a.value > b.value) === upper ? a : b;
};

/**
 * The ranges every branch of an `$or` implies on one field (their hull), as conditions to AND beside it.
 * SQLite serves an OR through several index searches whose rows it must collect and sort whole; with the
 * hull said as well it walks one index range in order and stops when the page is full. A page behind a
 * cursor is such an OR (`at < t OR (at = t AND _id < id)`: the hull is `at <= t`).
 */
const orHull = (branches: Filter[], usable: (field: string) => boolean): Array<{ field: string; op: string; value: string | number }> => {
  if (branches.length < 2) return [];
  const each = branches.map((b) => boundsOf(b, usable));
  const out: Array<{ field: string; op: string; value: string | number }> = [];
  for (const [field, first] of each[0] as Map<string, { lo?: Bound; hi?: Bound }>) {
    for (const side of ["lo", "hi"] as const) {
      let hull: Bound | undefined = first[side];
      for (const b of each.slice(1)) {
        const other = b.get(field)?.[side];
        hull = hull && other ? wider(hull, other, side === "hi") : undefined;
      }
      if (!hull) continue;
      const op = side === "hi" ? (hull.inclusive ? "<=" : "<") : hull.inclusive ? ">=" : ">";
      out.push({ field, op, value: hull.value });
    }
  }
  return out;
};

/**
 * Prefixes of a dotted field, each of which must be free of arrays for the field's key to stand for it:
 * `a.b.c` -> `a`, `a.b`, `a.b.c`.
 */
export const pathPrefixes = (field: string): string[] => {
  const parts = field.split(".");
  return parts.map((_, i) => parts.slice(0, i + 1).join("."));
};

/**
 * A SQL condition selecting at least every document `filter` matches, or null when nothing can be said.
 * `usable(field)` tells whether the field's key may stand for it (indexed, never an array).
 */
export const translateFilter = (filter: Filter, usable: (field: string) => boolean, unindexed = false): SqlCondition | null => {
  const parts: SqlCondition[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and") {
      for (const f of value as Filter[]) {
        const c = translateFilter(f, usable, unindexed);
        if (c) parts.push(c);
      }
      continue;
    }
    if (key === "$or") {
      const hull = orHull(value as Filter[], usable);
      // An OR of ranges of one order (each branch bounds nothing but the hull's fields and _id, as a page
      // behind a cursor does) is served by walking the hull's range in that order: its branches are kept
      // from the indexes (`+`), or SQLite would collect every row of each branch and sort them all.
      const fields = new Set(hull.map((h) => h.field));
      const oneRange = hull.length > 0 && (value as Filter[]).every((b) => Object.keys(b).every((k) => k === "_id" || fields.has(k)));
      const branches = (value as Filter[]).map((f) => translateFilter(f, usable, unindexed || oneRange));
      if (branches.length > 0 && branches.every((b) => b !== null)) {
        const bs = branches as SqlCondition[];
        parts.push({ sql: `(${bs.map((b) => b.sql).join(" OR ")})`, params: bs.flatMap((b) => b.params) });
      }
      parts.push(...hull.map(({ field, op, value: v }) => ({ sql: `${unindexed ? "+" : ""}${keyExpr(field)} ${op} ?`, params: [v] })));
      continue;
    }
    if (key.startsWith("$") || (key !== "_id" && !usable(key))) continue;
    const expr = `${unindexed ? "+" : ""}${keyExpr(key)}`;
    const scalar = keyValue(value);
    if (scalar !== undefined) {
      parts.push({ sql: `${expr} = ?`, params: [scalar] });
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof RegExp) continue;
    for (const [op, operand] of Object.entries(value as Record<string, unknown>)) {
      if (op in RANGE) {
        const v = keyValue(operand);
        if (v !== undefined && operand !== null) parts.push({ sql: `${expr} ${RANGE[op]} ?`, params: [v] });
        // A comparison never matches a missing or null field, whose key sorts first: without this bound,
        // `due: { $lte: now }` would walk every document that has no due time (every finished delivery,
        // every poller without a lease) before the first one that is due.
        if (v !== undefined && operand !== null && (op === "$lt" || op === "$lte")) parts.push({ sql: `${expr} > ?`, params: [NULL_KEY] });
      } else if (op === "$in" && Array.isArray(operand)) {
        const vs = operand.map(keyValue);
        if (vs.every((v) => v !== undefined)) {
          parts.push(vs.length === 0 ? { sql: "0", params: [] } : { sql: `${expr} IN (${vs.map(() => "?").join(", ")})`, params: vs as Array<string | number> });
        }
      } else if (op === "$exists" && operand === false) {
        parts.push({ sql: `${expr} = ?`, params: [NULL_KEY] });
      }
    }
  }
  if (parts.length === 0) return null;
  return { sql: parts.map((p) => p.sql).join(" AND "), params: parts.flatMap((p) => p.params) };
};

// ---- exact translation (counts)
//
// A count computed by SQLite must select exactly the documents the matcher would, so this translation
// answers null (and the count falls back to testing each document) for anything it cannot say exactly.
// Types are checked as the matcher compares them: equality and ranges only between values of one type.

type Known = (path: string) => boolean;

/** A condition an index other than the key expressions says exactly for `{ [field]: value }` (a text index), or null. */
export type Exactly = (field: string, value: unknown) => SqlCondition | null;

const never: Known = () => false;

const NUMBER_TYPES = "('integer','real')";

/** `json_type` of the field: what the document holds there (NULL when missing). */
const typeOf = (p: string): string => `json_type(doc, ${p})`;

/** An equality with a scalar on a field that never holds an array, through its key (so indexes serve it). */
const scalarEquals = (field: string, v: unknown, params: Array<string | number>): string | null => {
  const p = sqlString(jsonPath(field));
  const k = keyExpr(field);
  if (typeof v === "string") {
    params.push(v);
    return `${k} = ?`;
  }
  if (typeof v === "number" && Number.isFinite(v)) {
    params.push(v);
    return `(${k} = ? AND ${typeOf(p)} IN ${NUMBER_TYPES})`;
  }
  if (typeof v === "boolean") return `${typeOf(p)} = '${v ? "true" : "false"}'`;
  if (v instanceof Date) {
    params.push(v.getTime());
    return `(${k} = ? AND ${typeOf(p)} = 'object')`;
  }
  return null;
};

/** The JSON types and SQL value of a scalar as json_each and json_extract give them, or null. */
const elementOf = (v: unknown): { types: string; value?: string | number } | null => {
  if (typeof v === "string") return { types: "('text')", value: v };
  if (typeof v === "number" && Number.isFinite(v)) return { types: NUMBER_TYPES, value: v };
  if (typeof v === "boolean") return { types: `('${v ? "true" : "false"}')` };
  return null;
};

/** An equality on a field that may hold an array: the value itself, or any element, equals. */
const elementEquals = (field: string, values: unknown[], params: Array<string | number>): string | null => {
  const p = sqlString(jsonPath(field));
  const tests = values.map(elementOf);
  if (tests.some((t) => t === null)) return null;
  if (tests.length === 0) return "0";
  const one = (typeCol: string, valueCol: string) =>
    (tests as Array<{ types: string; value?: string | number }>)
      .map((t) => {
        if (t.value === undefined) return `${typeCol} IN ${t.types}`;
        params.push(t.value);
        return `(${typeCol} IN ${t.types} AND ${valueCol} = ?)`;
      })
      .join(" OR ");
  const scalar = one(typeOf(p), `json_extract(doc, ${p})`);
  const element = one("je_.type", "je_.value");
  return `((${scalar}) OR (${typeOf(p)} = 'array' AND EXISTS (SELECT 1 FROM json_each(doc, ${p}) AS je_ WHERE ${element})))`;
};

const rangeOf = (field: string, op: string, v: unknown, params: Array<string | number>, datesOnly: boolean): string | null => {
  const p = sqlString(jsonPath(field));
  const k = keyExpr(field);
  if (v instanceof Date && datesOnly) {
    // Only Dates (or nothing) there: the key alone decides, so an index on it answers without reading any
    // document. A missing field's key (NULL_KEY) sorts below every time and is kept out of `<` ranges.
    params.push(v.getTime());
    if (op === "$gt" || op === "$gte") return `${k} ${RANGE[op]} ?`;
    params.push(NULL_KEY);
    return `(${k} ${RANGE[op]} ? AND ${k} > ?)`;
  }
  if (v instanceof Date) {
    params.push(v.getTime());
    return `(${typeOf(p)} = 'object' AND ${k} ${RANGE[op]} ?)`;
  }
  if (typeof v === "number" && Number.isFinite(v)) {
    params.push(v);
    return `(${typeOf(p)} IN ${NUMBER_TYPES} AND ${k} ${RANGE[op]} ?)`;
  }
  return null;
};

const exactField = (field: string, value: unknown, known: Known, params: Array<string | number>, datesOnly: Known): string | null => {
  if (field === "_id") {
    if (typeof value === "string") {
      params.push(value);
      return "id = ?";
    }
    const ins = (value as { $in?: unknown } | null)?.$in;
    if (value !== null && typeof value === "object" && Object.keys(value).length === 1 && Array.isArray(ins) && ins.every((v) => typeof v === "string")) {
      if (ins.length === 0) return "0";
      params.push(...(ins as string[]));
      return `id IN (${ins.map(() => "?").join(", ")})`;
    }
    return null;
  }
  const prefixes = pathPrefixes(field);
  // Matching goes into arrays along a dotted path; only the last part may hold one here.
  if (!prefixes.slice(0, -1).every(known)) return null;
  const scalarField = known(field);
  const p = sqlString(jsonPath(field));
  const isOperators = value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date) && !(value instanceof RegExp);
  if (!isOperators) return scalarField ? scalarEquals(field, value, params) : elementEquals(field, [value], params);
  const parts: string[] = [];
  for (const [op, operand] of Object.entries(value as Record<string, unknown>)) {
    let sql: string | null = null;
    if (op === "$exists") {
      sql = `${typeOf(p)} IS ${operand ? "NOT " : ""}NULL`;
      // A missing field's key is NULL_KEY: said as well, an index on the field serves the test.
      if (!operand && scalarField) {
        params.push(NULL_KEY);
        sql = `(${keyExpr(field)} = ? AND ${sql})`;
      }
    }
    else if (op === "$in" && Array.isArray(operand)) {
      if (!scalarField) sql = elementEquals(field, operand, params);
      else if (operand.length > 0 && operand.every((v) => typeof v === "string")) {
        params.push(...(operand as string[]));
        sql = `${keyExpr(field)} IN (${operand.map(() => "?").join(", ")})`;
      } else {
        const each = operand.map((v) => scalarEquals(field, v, params));
        sql = each.length === 0 ? "0" : each.every((e) => e !== null) ? `(${each.join(" OR ")})` : null;
      }
    } else if (op in RANGE && scalarField) sql = rangeOf(field, op, operand, params, datesOnly(field));
    if (sql === null) return null;
    parts.push(sql);
  }
  return parts.length === 0 ? null : parts.join(" AND ");
};

/**
 * A SQL condition selecting exactly the documents `filter` matches, or null when it cannot be said exactly.
 * `known(path)` tells whether the path is known never to have held an array (then its key stands for it);
 * `datesOnly(path)` whether it is known to have held nothing but Dates (or nothing, or null); `exactly`
 * offers a condition of its own for a member (tried first).
 */
export const exactFilter = (filter: Filter, known: Known, datesOnly: Known = never, exactly?: Exactly): SqlCondition | null => {
  const params: Array<string | number> = [];
  const parts: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" || key === "$or") {
      const subs = (value as Filter[]).map((f) => exactFilter(f, known, datesOnly, exactly));
      if (subs.some((s) => s === null)) return null;
      const conds = subs as SqlCondition[];
      if (conds.length === 0) return null;
      parts.push(`(${conds.map((c) => `(${c.sql})`).join(key === "$and" ? " AND " : " OR ")})`);
      params.push(...conds.flatMap((c) => c.params));
      continue;
    }
    if (key.startsWith("$")) return null;
    const own = exactly?.(key, value);
    if (own) {
      parts.push(own.sql);
      params.push(...own.params);
      continue;
    }
    const sql = exactField(key, value, known, params, datesOnly);
    if (sql === null) return null;
    parts.push(sql);
  }
  return { sql: parts.length === 0 ? "1" : parts.join(" AND "), params };
};
