import type { Filter } from "./port";
import { keyExpr, keyValue, pathPrefixes } from "./sqlite-keys";

// Indexes on a field that holds arrays (MongoDB's multikey indexes) on the embedded store.
//
// One SQL index key per document cannot stand for an array: a document matches `{ tags: "a" }` when any
// element equals "a". So each such index gets a side table holding one row per (document, distinct element)
// with the key of every field of the index, the array field's key being the element's: `(k0, k1, …, mid)`,
// its primary key in index order. Triggers on the collection's table keep it current on every insert,
// update and delete (TTL deletes included), so no write path can forget it. A query with an equality on the
// array field (and on every field before it in the index) walks the side table in the index's order and
// joins each row to its document by id: a page of a rare element reads only that element's documents.

export interface MultikeyIndex {
  /** The side table's quoted name. */
  sql: string;
  /** The index's fields in order. */
  fields: string[];
  /** Position of the field that holds arrays. */
  arrayAt: number;
  /** The column of each field (`_id` is the row's `mid`). */
  columns: string[];
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const sqlText = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const jsonPathOf = (field: string): string => `$.${field.split(".").map((p) => `"${p.replace(/"/g, '""')}"`).join(".")}`;

/** The key of a json_each element, as keyExpr gives the key of a field holding that value. */
const ELEMENT_KEY =
  `(CASE je_.type WHEN 'object' THEN ifnull(json_extract(je_.value, '$."$$date"'), CAST(je_.value AS BLOB)) ` +
  `WHEN 'array' THEN CAST(je_.value AS BLOB) WHEN 'null' THEN -9e999 ELSE je_.value END)`;

export const multikeyIndex = (hash: string, fields: string[], arrayAt: number): MultikeyIndex => ({
  sql: quote(`m_${hash}`),
  fields,
  arrayAt,
  columns: fields.map((f, i) => (f === "_id" ? "mid" : `k${i}`)),
});

/** The rows of one document (`src` gives `doc` and `id`), as a SELECT for INSERT INTO the side table. */
const rowsOf = (ix: MultikeyIndex, src: string): string => {
  const p = sqlText(jsonPathOf(ix.fields[ix.arrayAt] as string));
  const keys = ix.fields.flatMap((f, i) => (f === "_id" ? [] : [i === ix.arrayAt ? ELEMENT_KEY : keyExpr(f)]));
  const elements = `json_each(CASE json_type(d_.doc, ${p}) WHEN 'array' THEN json_extract(d_.doc, ${p}) ELSE json_array(json(d_.doc -> ${p})) END) AS je_`;
  return `SELECT ${[...keys, "d_.id"].join(", ")} FROM ${src} AS d_, ${elements}`;
};

/** SQL creating the side table, its id index and the triggers that keep it current (idempotent). */
export const createMultikeySql = (ix: MultikeyIndex, table: string): string => {
  const keyColumns = ix.columns.filter((c) => c !== "mid");
  const name = ix.sql.slice(1, -1);
  const fresh = "(SELECT new.doc AS doc, new.id AS id)";
  return [
    `CREATE TABLE IF NOT EXISTS ${ix.sql} (${[...keyColumns, "mid TEXT NOT NULL"].join(", ")}, PRIMARY KEY (${[...keyColumns, "mid"].join(", ")})) WITHOUT ROWID;`,
    `CREATE INDEX IF NOT EXISTS ${quote(`${name}_id`)} ON ${ix.sql} (mid);`,
    `CREATE TRIGGER IF NOT EXISTS ${quote(`${name}_ins`)} AFTER INSERT ON ${table} BEGIN INSERT OR IGNORE INTO ${ix.sql} ${rowsOf(ix, fresh)}; END;`,
    `CREATE TRIGGER IF NOT EXISTS ${quote(`${name}_upd`)} AFTER UPDATE OF doc ON ${table} BEGIN DELETE FROM ${ix.sql} WHERE mid = old.id; ` +
      `INSERT OR IGNORE INTO ${ix.sql} ${rowsOf(ix, fresh)}; END;`,
    `CREATE TRIGGER IF NOT EXISTS ${quote(`${name}_del`)} AFTER DELETE ON ${table} BEGIN DELETE FROM ${ix.sql} WHERE mid = old.id; END;`,
  ].join("\n");
};

/** Fills a new side table from the documents already in the collection. */
export const fillMultikeySql = (ix: MultikeyIndex, table: string): string => `INSERT OR IGNORE INTO ${ix.sql} ${rowsOf(ix, table)}`;

export const dropMultikeySql = (ix: MultikeyIndex): string => `DROP TABLE IF EXISTS ${ix.sql};`;

/** A scalar an element can equal: what the side table's element key holds for it. */
const elementValue = (v: unknown): string | number | undefined => {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return undefined;
};

/** The members of a filter that every match satisfies: its own and those of its `$and`s, recursively. */
export const conjuncts = (filter: Filter, out: Array<[string, unknown]> = []): Array<[string, unknown]> => {
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) for (const f of value as Filter[]) conjuncts(f, out);
    else if (!key.startsWith("$")) out.push([key, value]);
  }
  return out;
};

export interface MultikeyPlan {
  /** FROM clause: the side table joined to the collection's rows. */
  from: string;
  where: string;
  params: Array<string | number>;
  orderBy: string;
}

/**
 * A walk of a side table that serves `filter` (an equality or `$in` of scalars on the array field, an
 * equality on every field before it) in `sort`'s order (the fields after the array field, `_id` breaking
 * ties as the store always does), or null. A document with two of the `$in` elements comes twice, next to
 * itself: the caller skips the repeat.
 */
export const multikeyPlan = (indexes: MultikeyIndex[], table: string, filter: Filter, sort: Record<string, 1 | -1> | undefined): MultikeyPlan | null => {
  if (indexes.length === 0) return null;
  const members = conjuncts(filter);
  const equal = (field: string): string | number | undefined => {
    for (const [k, v] of members) {
      if (k !== field || v === null) continue;
      const key = keyValue(v);
      if (key !== undefined) return key;
    }
    return undefined;
  };
  const elements = (field: string): Array<string | number> | undefined => {
    for (const [k, v] of members) {
      if (k !== field) continue;
      const one = elementValue(v);
      if (one !== undefined) return [one];
      const ins = v !== null && typeof v === "object" && Object.keys(v).length === 1 ? (v as { $in?: unknown }).$in : undefined;
      if (Array.isArray(ins) && ins.length > 0) {
        const values = ins.map(elementValue);
        if (values.every((x) => x !== undefined)) return values as Array<string | number>;
      }
    }
    return undefined;
  };
  const sortFields = sort ? Object.entries(sort) : [];
  for (const ix of indexes) {
    const values = elements(ix.fields[ix.arrayAt] as string);
    if (!values) continue;
    const before = ix.fields.slice(0, ix.arrayAt).map(equal);
    if (before.some((v) => v === undefined)) continue;
    const after = ix.fields.slice(ix.arrayAt + 1);
    if (sortFields.some(([f], i) => after[i] !== f)) continue;
    const params: Array<string | number> = [...(before as Array<string | number>), ...values];
    const conds = [
      ...ix.columns.slice(0, ix.arrayAt).map((c) => `m_.${c} = ?`),
      values.length === 1 ? `m_.${ix.columns[ix.arrayAt]} = ?` : `m_.${ix.columns[ix.arrayAt]} IN (${values.map(() => "?").join(", ")})`,
    ];
    const order = sortFields.map(([, d], i) => `m_.${ix.columns[ix.arrayAt + 1 + i]} ${d === 1 ? "ASC" : "DESC"}`);
    // Ties in id order, as every read of the store breaks them (a no-op when `_id` is already sorted on).
    if (!sortFields.some(([f]) => f === "_id")) order.push("m_.mid ASC");
    return {
      // CROSS JOIN: the side table is the outer loop, whatever the planner guesses.
      from: `${ix.sql} AS m_ CROSS JOIN ${table} ON ${table}.id = m_.mid`,
      where: conds.join(" AND "),
      params,
      orderBy: ` ORDER BY ${order.join(", ")}`,
    };
  }
  return null;
};

/** Whether the index may have a side table: one field holds arrays, nothing before it on its path does. */
export const multikeyField = (fields: string[], holdsArrays: (path: string) => boolean | undefined): number => {
  const arrays = fields.map((f) => holdsArrays(f) === true);
  if (arrays.filter(Boolean).length !== 1) return -1;
  const at = arrays.indexOf(true);
  const ok = fields.every((f, i) => f === "_id" || pathPrefixes(f).slice(0, i === at ? -1 : undefined).every((p) => holdsArrays(p) === false));
  return ok ? at : -1;
};

/** The filter's members when it is nothing but members and `$and`s of them (no `$or`, `$nor`, …), else null. */
const onlyConjuncts = (filter: Filter): Array<[string, unknown]> | null => {
  const out: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) {
      for (const f of value as Filter[]) {
        const inner = onlyConjuncts(f);
        if (!inner) return null;
        out.push(...inner);
      }
    } else if (key.startsWith("$")) return null;
    else out.push([key, value]);
  }
  return out;
};

/** The strings an equality or a non-empty `$in` of strings asks an element to be, else undefined. */
const stringElements = (v: unknown): string[] | undefined => {
  if (typeof v === "string") return [v];
  const ins = v !== null && typeof v === "object" && Object.keys(v).length === 1 ? (v as { $in?: unknown }).$in : undefined;
  return Array.isArray(ins) && ins.length > 0 && ins.every((x) => typeof x === "string") ? (ins as string[]) : undefined;
};

/** What a side table alone says of a filter (see multikeyRange). */
export interface MultikeyRange {
  ix: MultikeyIndex;
  /** The strings the array field is asked for. */
  strings: string[];
  /** Conditions on the side table's columns (alias `m_`) selecting exactly the filter's rows. */
  where: string;
  params: Array<string | number>;
}

/**
 * The rows of a side table that stand for `filter`, or null. It serves a filter that asks the array field
 * for one of some strings (a string element's key is itself) and whose every other member is on a field of
 * the same index, said exactly on that field's key by `onKey` (given the key's column, it answers the
 * condition, or null when it needs more than the key). Counting those rows walks the index's range of those
 * elements (say one group's mentions of a period), where testing each document of the period against the
 * side table would walk them all. A document holding two of the strings has two rows.
 */
export const multikeyRange = (
  indexes: MultikeyIndex[],
  filter: Filter,
  onKey: (field: string, value: unknown, column: string) => { sql: string; params: Array<string | number> } | null,
): MultikeyRange | null => {
  const members = onlyConjuncts(filter);
  if (!members) return null;
  for (const ix of indexes) {
    const arrayField = ix.fields[ix.arrayAt] as string;
    const onArray = members.filter(([k]) => k === arrayField);
    const strings = onArray.length === 1 ? stringElements(onArray[0]?.[1]) : undefined;
    if (!strings) continue;
    const conds = [`m_.${ix.columns[ix.arrayAt] as string} IN (${strings.map(() => "?").join(", ")})`];
    const params: Array<string | number> = [...strings];
    let served = true;
    for (const [field, value] of members) {
      if (field === arrayField) continue;
      const at = ix.fields.indexOf(field);
      const cond = at >= 0 && field !== "_id" ? onKey(field, value, `m_.${ix.columns[at] as string}`) : null;
      if (!cond) {
        served = false;
        break;
      }
      conds.push(cond.sql);
      params.push(...cond.params);
    }
    if (served) return { ix, strings, where: conds.join(" AND "), params };
  }
  return null;
};

/** The count of a side table's range: each document once, though it may hold several of the strings. */
export const multikeyCountSql = (range: MultikeyRange): string =>
  `SELECT ${range.strings.length === 1 ? "count(*)" : "count(DISTINCT m_.mid)"} AS n FROM ${range.ix.sql} AS m_ WHERE ${range.where}`;
