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
export const translateFilter = (filter: Filter, usable: (field: string) => boolean): SqlCondition | null => {
  const parts: SqlCondition[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and") {
      for (const f of value as Filter[]) {
        const c = translateFilter(f, usable);
        if (c) parts.push(c);
      }
      continue;
    }
    if (key === "$or") {
      const branches = (value as Filter[]).map((f) => translateFilter(f, usable));
      if (branches.length > 0 && branches.every((b) => b !== null)) {
        const bs = branches as SqlCondition[];
        parts.push({ sql: `(${bs.map((b) => b.sql).join(" OR ")})`, params: bs.flatMap((b) => b.params) });
      }
      continue;
    }
    if (key.startsWith("$") || (key !== "_id" && !usable(key))) continue;
    const expr = keyExpr(key);
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
