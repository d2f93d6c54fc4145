import * as model from "@seald-io/nedb/lib/model.js";
import { countDocs, CountTable } from "./count-by";
import type { CountRow, CountSpec, Filter, FindOptions } from "./port";
import { expire } from "./sqlite-expiry";
import { type SqlCondition, translateFilter } from "./sqlite-keys";
import type { QueryPlanner } from "./sqlite-plan";
import { reviveDocument } from "./sqlite-documents";
import { type SqliteSchema, type Stored, type Table, usableIn } from "./sqlite-schema";

// The reads of the embedded store: each runs the statement sqlite-plan.ts chose and tests every row it
// returns with nedb's matcher (what a filter means is decided in JavaScript, SQL only narrows), sorting in
// JavaScript what SQL could not order. Expired documents are deleted first (sqlite-expiry.ts), so no read
// sees one.

type Row = { doc: string };

/** nedb's sort: each field in turn by its comparison, ascending or descending. */
const compareBy = (sort: Record<string, 1 | -1>) => (a: unknown, b: unknown) => {
  for (const [field, dir] of Object.entries(sort)) {
    const c = model.compareThings(model.getDotValue(a, field), model.getDotValue(b, field));
    if (c !== 0) return c * dir;
  }
  return 0;
};

export class SqliteReads {
  constructor(
    private readonly schema: SqliteSchema,
    private readonly planner: QueryPlanner,
  ) {}

  byId(table: Table, id: string): Stored | null {
    const row = this.schema.prepare(`SELECT doc FROM ${table.sql} WHERE id = ?`).get(id) as Row | undefined;
    return row ? (reviveDocument(row.doc) as Stored) : null;
  }

  private rows(table: Table, where: SqlCondition | null, orderBy: string): IterableIterator<Row> {
    const sql = `SELECT doc FROM ${table.sql}${where ? ` WHERE ${where.sql}` : ""}${orderBy}`;
    return this.schema.prepare(sql).iterate(...(where?.params ?? [])) as IterableIterator<Row>;
  }

  /** The documents matching `filter`, sorted, skipped and limited as `options` say. */
  find(table: Table, filter: Filter, options: FindOptions): Stored[] {
    expire(this.schema, table);
    const sort = options.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
    const skip = options.skip ?? 0;
    const limit = options.limit ?? Infinity;
    // One document by its id (most reads): its row, with no statement to build and no iterator to close.
    if (skip === 0 && limit >= 1 && typeof filter._id === "string" && Object.keys(filter).length === 1) {
      const doc = this.byId(table, filter._id);
      return doc && model.match(doc, filter) ? [doc] : [];
    }
    const { sql, params, sortedInSql } = this.planner.findQuery(table, filter, options);
    const out: Stored[] = [];
    let skipped = 0;
    let lastId: string | undefined;
    for (const row of this.schema.prepare(sql).iterate(...params) as IterableIterator<Row>) {
      const doc = reviveDocument(row.doc) as Stored;
      // A side table's walk meets a document once per matching element, each time next to itself.
      if (doc._id === lastId) continue;
      lastId = doc._id;
      if (!model.match(doc, filter)) continue;
      if (sortedInSql) {
        if (skipped < skip) {
          skipped += 1;
          continue;
        }
        out.push(doc);
        if (out.length >= limit) break;
      } else {
        out.push(doc);
      }
    }
    if (sortedInSql) return out;
    return out.sort(compareBy(sort as Record<string, 1 | -1>)).slice(skip, skip + limit);
  }

  /** In SQL alone when the filter translates exactly, else by testing each row SQL narrows to. */
  count(table: Table, filter: Filter): number {
    expire(this.schema, table);
    const exact = this.planner.countQuery(table, filter);
    if (exact) return (this.schema.prepare(exact.sql).get(...exact.params) as { n: number }).n;
    let n = 0;
    for (const row of this.rows(table, translateFilter(filter, usableIn(table)), "")) {
      if (model.match(reviveDocument(row.doc), filter)) n += 1;
    }
    return n;
  }

  /**
   * countBy in SQL when the filter translates exactly: SQLite selects the rows through the indexes, buckets
   * the time with a SQL expression and groups by the field's key (from an index or a side table when the
   * field has held strings only, else its JSON); no document is parsed in JavaScript and nothing is called
   * back per row. Otherwise the matched documents are counted here.
   */
  countBy(table: Table, filter: Filter, spec: CountSpec): CountRow[] {
    expire(this.schema, table);
    const q = this.planner.countByQuery(table, filter, spec);
    if (!q) return countDocs(this.find(table, filter, {}), spec);
    const rows = this.schema.prepare(q.sql).all(...q.params) as Array<{ b: number; k: string | null; n: number }>;
    if (q.keys === "string") return rows.map((r) => ({ bucket: r.b, key: r.k, count: r.n }));
    const counts = new CountTable();
    for (const row of rows) {
      const value = row.k === null ? null : (JSON.parse(row.k) as unknown);
      // Objects and Dates count under null, as the port says.
      counts.add(row.b, value !== null && typeof value === "object" ? null : (value as CountRow["key"]), row.n);
    }
    return counts.rows();
  }
}
