import type { CountSpec, Filter, FindOptions } from "./port";
import { bucketSql, stringKeySql } from "./sqlite-count";
import { type Exactly, exactFilter, keyExpr, pathPrefixes, type SqlCondition, translateFilter } from "./sqlite-keys";
import { conjuncts, type MultikeyRange, multikeyCountSql, multikeyPlan, multikeyRange } from "./sqlite-multikey";
import { type IndexMeta, indexHash, jsonPathOf, quote, type SqliteSchema, type Table, usableIn } from "./sqlite-schema";
import { isPlainWord, matchAll, type TextIndex } from "./sqlite-text";

// Query planning for the embedded store: the SQL statement a find, a count or a countBy runs, chosen from
// what the store knows of the collection (sqlite-schema.ts). SQL narrows the rows through the indexes and
// orders them when it can; sqlite-reads.ts runs the statement and tests every row it returns with the
// port's matcher. A count is said in SQL alone only when the filter translates exactly.

// Up to this many documents holding a query's words, a read starts from the full-text index (and sorts
// them); beyond, it walks the order's index and tests each row (a page: the row's own words; an unbounded
// read: the words' rowids), so a page of a common word stops early. Either way no document that cannot
// match is handed to JavaScript.
const TEXT_DRIVE = 2000;
/** Reads of at most this many documents test a common word on each row they walk (see findQuery). */
const PAGE_WALK_LIMIT = 1000;

/**
 * ORDER BY for a sort, ties by id as every read of the store breaks them. An id already sorted on is not
 * repeated: SQLite would sort each run of equal keys again for it instead of reading the index's order.
 */
const orderBySql = (sort: Record<string, 1 | -1>): string => {
  const terms = Object.entries(sort).map(([f, d]) => `${keyExpr(f)} ${d === 1 ? "ASC" : "DESC"}`);
  return ` ORDER BY ${[...terms, ...("_id" in sort ? [] : ["id"])].join(", ")}`;
};

const sqlText = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export class QueryPlanner {
  constructor(private readonly schema: SqliteSchema) {}

  /** The statement `find` runs: SQL narrows (through an index or a side table) and orders when it can. */
  findQuery(table: Table, filter: Filter, options: FindOptions): { sql: string; params: Array<string | number>; sortedInSql: boolean } {
    const usable = usableIn(table);
    const where = translateFilter(filter, usable);
    const sort = options.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
    const sortedInSql = !sort || Object.keys(sort).every((f) => f === "_id" || usable(f));
    const side = sortedInSql ? multikeyPlan(table.multikey, table.sql, filter, sort) : null;
    const text = this.textMatch(table, filter);
    if (text && !side && text.rows <= TEXT_DRIVE) {
      // Few documents hold the words: read those (FTS5 gives their rowids), filter and sort them.
      const orderBy = sort && sortedInSql ? orderBySql(sort) : "";
      const from = `(SELECT rowid AS r_ FROM ${text.ix.sql} WHERE ${text.ix.sql} MATCH ?) AS x_ CROSS JOIN ${table.sql} ON ${table.sql}.rowid = x_.r_`;
      return { sql: `SELECT doc FROM ${from}${where ? ` WHERE ${where.sql}` : ""}${orderBy}`, params: [text.match, ...(where?.params ?? [])], sortedInSql };
    }
    // Many do: a test on each row the walk meets. For a page (a bounded read), each row's own words are
    // looked at: SQLite would otherwise build the word's whole postings list (tens of thousands of rowids
    // for a common word) for every page, so a page's cost grew with the collection. An unbounded read
    // walks every row the other conditions select, so it tests them against the postings list, built
    // once (`+` keeps the planner from starting at the rowids).
    const rowTest = text !== null && options.limit !== undefined && options.limit <= PAGE_WALK_LIMIT;
    const textCond = !text
      ? null
      : rowTest
        ? {
            sql: text.words.map(() => `EXISTS (SELECT 1 FROM json_each(${table.sql}.doc, ?) WHERE type = 'text' AND value = ?)`).join(" AND "),
            params: text.words.flatMap((w) => [jsonPathOf(text.ix.field), w]),
          }
        : { sql: `+${table.sql}.rowid IN (SELECT rowid FROM ${text.ix.sql} WHERE ${text.ix.sql} MATCH ?)`, params: [text.match] };
    const conds = [where, textCond].filter((c): c is SqlCondition => c !== null);
    const condSql = conds.map((c) => c.sql).join(" AND ");
    const condParams = conds.flatMap((c) => c.params);
    if (side) {
      const all = condSql ? `${side.where} AND ${condSql}` : side.where;
      return { sql: `SELECT ${table.sql}.doc AS doc FROM ${side.from} WHERE ${all}${side.orderBy}`, params: [...side.params, ...condParams], sortedInSql };
    }
    const orderBy = sort && sortedInSql ? orderBySql(sort) : "";
    return { sql: `SELECT doc FROM ${table.sql}${condSql ? ` WHERE ${condSql}` : ""}${orderBy}`, params: condParams, sortedInSql };
  }

  /**
   * The full-text query of a text index for the plain words `filter` requires its field to hold (equalities
   * every match satisfies), with how many documents hold them all (counted up to TEXT_DRIVE + 1); null
   * when it requires none.
   */
  private textMatch(table: Table, filter: Filter): { ix: TextIndex; words: string[]; match: string; /** up to TEXT_DRIVE + 1 */ rows: number } | null {
    if (table.text.length === 0) return null;
    const members = conjuncts(filter);
    for (const ix of table.text) {
      const words = [...new Set(members.filter(([k, v]) => k === ix.field && isPlainWord(v)).map(([, v]) => v as string))];
      if (words.length === 0) continue;
      const match = matchAll(words);
      return { ix, words, match, rows: this.textRows(ix, match) };
    }
    return null;
  }

  /**
   * How many documents hold the words, counted up to one more than TEXT_DRIVE (all that is ever asked of
   * it: whether few do). Counting a common word's every posting would cost as much as the read it decides.
   */
  private textRows(ix: TextIndex, match: string): number {
    return (this.schema.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM ${ix.sql} WHERE ${ix.sql} MATCH ? LIMIT ${TEXT_DRIVE + 1})`).get(match) as { n: number }).n;
  }

  /**
   * For counts: a text index says `{ field: word }` exactly while the field has held plain words only; an
   * array field's side table says an equality or `$in` of strings (a string element's key is itself), one
   * probe of its id index a row instead of reading the document's array.
   */
  private exactly(table: Table): Exactly | undefined {
    if (table.text.length === 0 && table.multikey.length === 0) return undefined;
    return (field, value) => {
      const side = table.multikey.find((m) => m.fields[m.arrayAt] === field);
      const ins = value !== null && typeof value === "object" && Object.keys(value).length === 1 ? (value as { $in?: unknown }).$in : undefined;
      const strings = typeof value === "string" ? [value] : Array.isArray(ins) && ins.length > 0 && ins.every((v) => typeof v === "string") ? (ins as string[]) : undefined;
      if (side && strings) {
        const column = side.columns[side.arrayAt] as string;
        return { sql: `EXISTS (SELECT 1 FROM ${side.sql} AS e_ WHERE e_.mid = ${table.sql}.id AND e_.${column} IN (${strings.map(() => "?").join(", ")}))`, params: strings };
      }
      const ix = table.text.find((t) => t.field === field && t.plain);
      if (!ix || !isPlainWord(value)) return null;
      const match = matchAll([value]);
      // Many rows: tested as the walk meets them, as in find.
      const plus = this.textRows(ix, match) > TEXT_DRIVE ? "+" : "";
      return { sql: `${plus}rowid IN (SELECT rowid FROM ${ix.sql} WHERE ${ix.sql} MATCH ?)`, params: [match] };
    };
  }



  /** Indexed fields known to have held nothing but Dates: a range on their key needs no type check. */
  private datesOnly(table: Table): (field: string) => boolean {
    return (field) => table.dates.get(field) === true;
  }

  /** Paths known never to have held an array (indexed ones: see SqliteSchema.setPath), whose keys stand for them in SQL. */
  private known(table: Table): (path: string) => boolean {
    return (path) => table.paths.get(path) === false;
  }

  /**
   * The statement counting `filter` when SQL says it exactly, or null: from an array field's side table
   * alone when the filter asks that field for some strings and says nothing the side table does not hold
   * (see multikeyCount), else over the collection's rows through its indexes.
   */
  countQuery(table: Table, filter: Filter): SqlCondition | null {
    const range = this.sideRange(table, filter);
    if (range) return { sql: multikeyCountSql(range), params: range.params };
    const exact = exactFilter(filter, this.known(table), this.datesOnly(table), this.exactly(table));
    return exact ? { sql: `SELECT count(*) AS n FROM ${table.sql} WHERE ${exact.sql}`, params: exact.params } : null;
  }

  /** The rows of an array field's side table that alone stand for `filter` (see multikeyRange), or null. */
  private sideRange(table: Table, filter: Filter): MultikeyRange | null {
    const known = this.known(table);
    const datesOnly = this.datesOnly(table);
    return multikeyRange(table.multikey, filter, (field, value, column) => {
      // The member said exactly on the field's key, the key then read from the side table's column; a
      // condition that needs more of the document than the key (a type check) is not served there.
      const exact = exactFilter({ [field]: value }, known, datesOnly);
      const sql = exact?.sql.split(keyExpr(field)).join(column);
      return exact && sql !== undefined && !/\bdoc\b/.test(sql) ? { sql, params: exact.params } : null;
    });
  }

  /** The statement countBy runs when the filter translates exactly (see exactFilter), or null. */
  countByQuery(table: Table, filter: Filter, spec: CountSpec): { sql: string; params: Array<string | number>; keys: "string" | "json" } | null {
    const known = this.known(table);
    const datesOnly = this.datesOnly(table);
    const where = exactFilter(filter, known, datesOnly, this.exactly(table));
    const by = spec.by;
    if (!where || (by !== undefined && !pathPrefixes(by).slice(0, -1).every(known))) return null;
    const params: Array<string | number> = [];
    // The time of a row: on a field of Dates only its key (which an index holds, so no document is read).
    let time = "NULL";
    let bucket = () => "0";
    if (spec.buckets) {
      const field = spec.buckets.field;
      const keyed = datesOnly(field) && known(field);
      time = keyed ? keyExpr(field) : `json_extract(doc, ${sqlText(`${jsonPathOf(field)}."$$date"`)})`;
      const starts = spec.buckets.starts.map((d) => d.getTime());
      bucket = () => bucketSql("t_", starts, params, keyed);
    }
    const stringsOnly = by !== undefined && table.strings.get(by) === true;
    const grouped = (inner: string, keys: "string" | "json") => {
      // The bucket's placeholders come first in the text; the filter's follow. `LIMIT -1` keeps SQLite from
      // flattening the rows' query into the aggregate, where it would no longer read an index as covering
      // (it would read every matched document for keys the index holds).
      const sql = `SELECT b, k, count(*) AS n FROM (SELECT ${bucket()} AS b, k FROM (${inner} LIMIT -1)) WHERE b >= 0 GROUP BY b, k`;
      params.push(...where.params);
      return { sql, params, keys };
    };
    const keyed = spec.buckets && datesOnly(spec.buckets.field) && known(spec.buckets.field) ? [spec.buckets.field] : [];
    const scalarBy = by !== undefined && known(by) && stringsOnly ? [by] : [];
    const covering = this.coveringIndex(table, filter, [...keyed, ...scalarBy]);
    const matched = `FROM ${table.sql}${covering ? ` INDEXED BY ${quote(covering)}` : ""} WHERE ${where.sql}`;
    // Without an index holding every field read, the rows are chosen by a query that can read indexes alone
    // (so SQLite picks the index that selects), then only those rows are read.
    const chosen = covering ? matched : `FROM (SELECT rowid AS r_ ${matched}) AS s_ CROSS JOIN ${table.sql} ON ${table.sql}.rowid = s_.r_`;
    if (by === undefined) return grouped(`SELECT ${time} AS t_, NULL AS k ${chosen}`, "string");
    if (known(by) && stringsOnly) {
      // The group key is the field's key: an index holding the filter's fields, the field and the time covers the count.
      return grouped(`SELECT ${time} AS t_, ${stringKeySql(keyExpr(by))} AS k ${chosen}`, "string");
    }
    const side = table.multikey.find((ix) => ix.fields[ix.arrayAt] === by);
    if (!known(by) && stringsOnly && side) {
      // An array field with a side table: its rows are the distinct elements of each matched document.
      const element = `m_.${side.columns[side.arrayAt] as string}`;
      return grouped(
        `SELECT s_.t_ AS t_, ${stringKeySql(element)} AS k FROM (SELECT id AS i_, ${time} AS t_ ${matched} LIMIT -1) AS s_ CROSS JOIN ${side.sql} AS m_ ON m_.mid = s_.i_`,
        "string",
      );
    }
    // Otherwise the key is read from each matched document as JSON (the rows chosen first by a query that can
    // read indexes alone, so SQLite picks the index that selects).
    const rows = `(SELECT rowid AS r_ ${matched}) AS s_ CROSS JOIN ${table.sql} ON ${table.sql}.rowid = s_.r_`;
    const p = sqlText(jsonPathOf(by));
    if (known(by)) return grouped(`SELECT ${time} AS t_, doc -> ${p} AS k FROM ${rows}`, "json");
    // Every value becomes a one-element array unless it is one, so json_each yields what it counts under;
    // DISTINCT counts a document once per distinct element.
    const values = `json_each(CASE json_type(doc, ${p}) WHEN 'array' THEN json_extract(doc, ${p}) ELSE json_array(json(doc -> ${p})) END) AS el_`;
    const key = `CASE WHEN el_.type IN ('object', 'array', 'null') THEN 'null' WHEN el_.type IN ('true', 'false') THEN el_.type ELSE json_quote(el_.value) END`;
    return grouped(`SELECT DISTINCT ${table.sql}.id AS id, ${time} AS t_, ${key} AS k FROM ${rows}, ${values}`, "json");
  }

  /**
   * The smallest SQL index holding every field a count reads (the filter's and `fields`), led by a field the
   * filter sets equal, or undefined. SQLite's planner prefers an index that narrows by the filter's range
   * (say the period's dates) and then reads each matched document for the group key, which costs a document
   * a row; the index that holds the key as well costs an index entry a row, several times less.
   */
  private coveringIndex(table: Table, filter: Filter, fields: string[]): string | undefined {
    if (Object.keys(filter).some((k) => k.startsWith("$") && k !== "$and")) return undefined;
    const members = conjuncts(filter);
    if (members.some(([k]) => k.startsWith("$"))) return undefined;
    // A word of a text index is tested against its rowids (every index holds the rowid), unless few
    // documents hold it: then SQLite should start from those.
    const words = (f: string, v: unknown) => {
      const ix = table.text.find((t) => t.field === f && t.plain);
      return ix !== undefined && isPlainWord(v) && this.textRows(ix, matchAll([v])) > TEXT_DRIVE;
    };
    // An array field's side table is probed by id (every index holds it).
    const sideField = (f: string) => table.multikey.some((m) => m.fields[m.arrayAt] === f);
    const usable = usableIn(table);
    const equal = new Set(members.filter(([, v]) => typeof v === "string").map(([k]) => k));
    let best: { name: string; size: number } | undefined;
    for (const ix of this.schema.prepare("SELECT * FROM _indexes WHERE collection = ?").all(table.name) as IndexMeta[]) {
      const ixFields = Object.keys(JSON.parse(ix.fields) as object);
      if ((ix.is_unique === 1 && ix.sparse === 0) || !ixFields.every((f) => f === "_id" || usable(f)) || !equal.has(ixFields[0] as string)) continue;
      const holds = (f: string) => f === "_id" || ixFields.includes(f);
      if (!fields.every(holds) || !members.every(([k, v]) => holds(k) || sideField(k) || words(k, v))) continue;
      const name = `ix_${indexHash(table.name, ix.key)}`;
      if (best && ixFields.length >= best.size) continue;
      if (this.schema.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").get(name) !== undefined) best = { name, size: ixFields.length };
    }
    return best?.name;
  }


  /** SQLite's plan for what `find` would run (EXPLAIN QUERY PLAN, one line per step): tests check index use with it. */
  explainFind(table: Table, filter: Filter, options: FindOptions): string[] {
    return this.explain(this.findQuery(table, filter, options));
  }

  /** SQLite's plan for the count of `filter` when SQL can say it exactly (null otherwise): tests check index use with it. */
  explainCount(table: Table, filter: Filter): string[] | null {
    const q = this.countQuery(table, filter);
    return q ? this.explain(q) : null;
  }

  /** SQLite's plan for countBy when SQL says it (null otherwise): tests check index use with it. */
  explainCountBy(table: Table, filter: Filter, spec: CountSpec): string[] | null {
    const q = this.countByQuery(table, filter, spec);
    return q ? this.explain(q) : null;
  }

  private explain(q: SqlCondition): string[] {
    return (this.schema.db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as Array<{ detail: string }>).map((r) => r.detail);
  }
}
