import { createHash } from "node:crypto";
import * as model from "@seald-io/nedb/lib/model.js";
import type Database from "better-sqlite3";
import { assertIndex, reconcileIndex } from "./checks";
import type { Doc, IndexOptions, IndexSpec } from "./port";
import { holdsStringKeys } from "./sqlite-count";
import { keyExpr, pathPrefixes } from "./sqlite-keys";
import { createMultikeySql, dropMultikeySql, fillMultikeySql, type MultikeyIndex, multikeyField, multikeyIndex } from "./sqlite-multikey";
import { createTextSql, dropTextSql, fillTextSql, holdsPlainWords, type TextIndex, textIndex } from "./sqlite-text";

// What the embedded store (embedded.ts) knows of each collection, and keeps in the database beside it: the
// collection's table, the indexes declared on it (`_indexes`) and what their fields have held (`_paths`:
// an array; `_dates`: nothing but Dates; `_strings`: nothing but strings; `_text`: a text index's field,
// and whether it has held plain words only). Queries are planned from this knowledge (sqlite-plan.ts) and
// every write updates it (observe), so it is true of every stored document. Also here: the prepared
// statements every part of the store shares, and its transactions.

const STATEMENT_CACHE = 500;

export type Stored = Doc & Record<string, unknown>;

export interface IndexMeta {
  collection: string;
  key: string;
  fields: string;
  is_unique: number;
  sparse: number;
  expire: number | null;
}

export interface Table {
  name: string;
  sql: string;
  /** Indexed fields (and their prefixes): true once one of them has held an array. */
  paths: Map<string, boolean>;
  /** TTL field -> seconds. */
  ttl: Map<string, number>;
  /** Indexed fields: true while every value they held was a Date (or missing, or null). */
  dates: Map<string, boolean>;
  /** Indexed fields: true while no value they held (nor an element of one) was a number, boolean or Date. */
  strings: Map<string, boolean>;
  /** Indexes on a field that holds arrays, each served by a side table (see sqlite-multikey.ts). */
  multikey: MultikeyIndex[];
  /** Indexes declared with `text`, each served by a full-text table (see sqlite-text.ts). */
  text: TextIndex[];
}

export const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export const indexHash = (collection: string, key: string): string => createHash("sha1").update(`${collection}|${key}`).digest("hex").slice(0, 16);

export const jsonPathOf = (field: string): string => `$.${field.split(".").map((p) => `"${p.replace(/"/g, '""')}"`).join(".")}`;

/** A field whose key may stand for it in SQL: indexed, and no array on its path, ever. */
export const usableIn =
  (table: Table) =>
  (field: string): boolean =>
    pathPrefixes(field).every((p) => table.paths.get(p) === false);

export class SqliteSchema {
  private readonly tables = new Map<string, Table>();
  private readonly statements = new Map<string, Database.Statement>();
  /** Set when the store closes: no table is opened after. */
  closed = false;

  constructor(readonly db: Database.Database) {
    db.exec(
      `CREATE TABLE IF NOT EXISTS _indexes (collection TEXT NOT NULL, key TEXT NOT NULL, fields TEXT NOT NULL, is_unique INTEGER NOT NULL,
         sparse INTEGER NOT NULL, expire INTEGER, PRIMARY KEY (collection, key));
       CREATE TABLE IF NOT EXISTS _paths (collection TEXT NOT NULL, path TEXT NOT NULL, multikey INTEGER NOT NULL, PRIMARY KEY (collection, path));
       CREATE TABLE IF NOT EXISTS _dates (collection TEXT NOT NULL, path TEXT NOT NULL, dates_only INTEGER NOT NULL, PRIMARY KEY (collection, path));
       CREATE TABLE IF NOT EXISTS _strings (collection TEXT NOT NULL, path TEXT NOT NULL, strings_only INTEGER NOT NULL, PRIMARY KEY (collection, path));
       CREATE TABLE IF NOT EXISTS _text (collection TEXT NOT NULL, key TEXT NOT NULL, field TEXT NOT NULL, plain INTEGER NOT NULL, PRIMARY KEY (collection, key));`,
    );
  }

  /** The collections opened so far (the minute's expiry sweep visits them). */
  opened(): IterableIterator<Table> {
    return this.tables.values();
  }

  /** A statement, prepared once and kept (up to STATEMENT_CACHE of them) for every part of the store. */
  prepare(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.clear();
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  transaction<R>(fn: () => R): R {
    try {
      return this.db.transaction(fn)();
    } catch (err) {
      // A rolled-back transaction may have created a table or changed what is known of a collection's
      // indexes; the next access reads both again from the database.
      if (!this.db.inTransaction) this.tables.clear();
      throw err;
    }
  }

  table(name: string): Table {
    if (this.closed) throw new Error("The store is closed.");
    let table = this.tables.get(name);
    if (table) return table;
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) throw new Error(`Bad collection name ${name}`);
    const sql = quote(`c_${name}`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${sql} (id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL)`);
    table = { name, sql, paths: new Map(), ttl: new Map(), dates: new Map(), strings: new Map(), multikey: [], text: [] };
    for (const p of this.prepare("SELECT path, multikey FROM _paths WHERE collection = ?").all(name) as Array<{ path: string; multikey: number }>) {
      table.paths.set(p.path, p.multikey === 1);
    }
    for (const d of this.prepare("SELECT path, dates_only FROM _dates WHERE collection = ?").all(name) as Array<{ path: string; dates_only: number }>) {
      table.dates.set(d.path, d.dates_only === 1);
    }
    for (const d of this.prepare("SELECT path, strings_only FROM _strings WHERE collection = ?").all(name) as Array<{ path: string; strings_only: number }>) {
      table.strings.set(d.path, d.strings_only === 1);
    }
    for (const ix of this.prepare("SELECT * FROM _indexes WHERE collection = ?").all(name) as IndexMeta[]) {
      const fields = Object.keys(JSON.parse(ix.fields) as object);
      if (ix.expire !== null) table.ttl.set(fields[0] as string, ix.expire);
      // A data directory written before the store kept this knowledge learns it once.
      for (const f of fields) if (f !== "_id" && !table.dates.has(f)) this.learnDates(table, f);
      for (const f of fields) if (f !== "_id" && !table.strings.has(f)) this.learnStrings(table, f);
    }
    this.tables.set(name, table);
    this.refreshMultikey(table);
    this.refreshText(table);
    return table;
  }

  // ---- indexes

  ensureIndex(table: Table, spec: IndexSpec): void {
    assertIndex(spec);
    const fields = Object.keys(spec.fields);
    // One index per set of fields, whatever their order and direction (as the port has always read it).
    const key = [...fields].sort().join(",");
    this.transaction(() => {
      const meta = this.prepare("SELECT * FROM _indexes WHERE collection = ? AND key = ?").get(table.name, key) as IndexMeta | undefined;
      if (meta) {
        const existing: IndexOptions = {
          unique: meta.is_unique === 1,
          sparse: meta.sparse === 1,
          ...(meta.expire !== null ? { expireAfterSeconds: meta.expire } : {}),
        };
        const change = reconcileIndex(table.name, spec, existing);
        if (change.action === "set-expiry") {
          this.prepare("UPDATE _indexes SET expire = ? WHERE collection = ? AND key = ?").run(change.expireAfterSeconds, table.name, key);
          table.ttl.set(fields[0] as string, change.expireAfterSeconds);
        }
        this.declareText(table, key, spec.text);
        return;
      }
      const hash = indexHash(table.name, key);
      const exprs = fields.map(keyExpr);
      if (spec.unique) {
        // Missing and null share one key, so a unique index holds one document without its fields, unless sparse.
        const where = spec.sparse ? ` WHERE ${exprs.map((e) => `${e} > -9e999`).join(" OR ")}` : "";
        this.db.exec(`CREATE UNIQUE INDEX ${quote(`ux_${hash}`)} ON ${table.sql} (${exprs.join(", ")})${where}`);
      }
      if ((!spec.unique || spec.sparse) && !fields.some((f) => this.holdsArrays(table, f))) {
        // The index queries use: every document, `_id` last so that ties are walked in id order.
        const columns = exprs[exprs.length - 1] === "id" ? exprs : [...exprs, "id"];
        this.db.exec(`CREATE INDEX ${quote(`ix_${hash}`)} ON ${table.sql} (${columns.join(", ")})`);
      }
      this.prepare("INSERT INTO _indexes (collection, key, fields, is_unique, sparse, expire) VALUES (?, ?, ?, ?, ?, ?)").run(
        table.name,
        key,
        JSON.stringify(spec.fields),
        spec.unique ? 1 : 0,
        spec.sparse ? 1 : 0,
        spec.expireAfterSeconds ?? null,
      );
      for (const f of fields) if (f !== "_id" && !table.dates.has(f)) this.learnDates(table, f);
      for (const f of fields) if (f !== "_id" && !table.strings.has(f)) this.learnStrings(table, f);
      for (const path of fields.flatMap(pathPrefixes)) {
        if (table.paths.has(path)) continue;
        const arrays = this.prepare(`SELECT 1 FROM ${table.sql} WHERE json_type(doc, ?) = 'array' LIMIT 1`).get(jsonPathOf(path));
        this.setPath(table, path, arrays !== undefined);
      }
      if (spec.expireAfterSeconds !== undefined) table.ttl.set(fields[0] as string, spec.expireAfterSeconds);
      this.declareText(table, key, spec.text);
      this.refreshMultikey(table);
    });
  }

  /**
   * Keeps a side table for every non-unique index with exactly one field that holds arrays (see
   * sqlite-multikey.ts), creating and filling it the first time, e.g. when a field first holds an array or
   * a data directory written before side tables existed is opened.
   */
  private refreshMultikey(table: Table): void {
    const wanted: MultikeyIndex[] = [];
    const text = new Set((this.prepare("SELECT key FROM _text WHERE collection = ?").all(table.name) as Array<{ key: string }>).map((t) => t.key));
    for (const ix of this.prepare("SELECT * FROM _indexes WHERE collection = ?").all(table.name) as IndexMeta[]) {
      // A text index is served by its full-text table instead.
      if (ix.is_unique === 1 || ix.expire !== null || text.has(ix.key)) continue;
      const fields = Object.keys(JSON.parse(ix.fields) as object);
      const at = multikeyField(fields, (p) => table.paths.get(p));
      if (at >= 0) wanted.push(multikeyIndex(indexHash(table.name, ix.key), fields, at));
    }
    if (wanted.length === table.multikey.length && wanted.every((w, i) => w.sql === table.multikey[i]?.sql)) return;
    this.transaction(() => {
      for (const ix of wanted) {
        const exists = this.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(ix.sql.slice(1, -1)) !== undefined;
        this.db.exec(createMultikeySql(ix, table.sql));
        if (!exists) this.db.exec(fillMultikeySql(ix, table.sql));
      }
      for (const old of table.multikey) if (!wanted.some((w) => w.sql === old.sql)) this.db.exec(dropMultikeySql(old));
    });
    table.multikey = wanted;
  }

  /** Records whether the index `key` is a text index (and on which field), as its latest ensureIndex said. */
  private declareText(table: Table, key: string, field: string | undefined): void {
    const was = this.prepare("SELECT field FROM _text WHERE collection = ? AND key = ?").get(table.name, key) as { field: string } | undefined;
    if (was?.field === field) return;
    if (field === undefined) this.prepare("DELETE FROM _text WHERE collection = ? AND key = ?").run(table.name, key);
    else this.prepare("INSERT OR REPLACE INTO _text (collection, key, field, plain) VALUES (?, ?, ?, 1)").run(table.name, key, field);
    this.refreshText(table);
    this.refreshMultikey(table);
  }

  /**
   * Keeps a full-text table for every text index (see sqlite-text.ts), creating and filling it the first
   * time (learning then whether the field's strings are all plain words), and drops those no longer declared.
   */
  private refreshText(table: Table): void {
    const declared = this.prepare("SELECT key, field, plain FROM _text WHERE collection = ?").all(table.name) as Array<{ key: string; field: string; plain: number }>;
    const wanted = declared.map((t) => ({ key: t.key, ix: textIndex(indexHash(table.name, t.key), t.field, t.plain === 1) }));
    this.transaction(() => {
      for (const { key, ix } of wanted) {
        if (table.text.some((t) => t.sql === ix.sql)) continue;
        const exists = this.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(ix.sql.slice(1, -1)) !== undefined;
        this.db.exec(createTextSql(ix, table.sql));
        if (exists) continue;
        this.db.exec(fillTextSql(ix, table.sql));
        const path = jsonPathOf(ix.field);
        for (const row of this.prepare(`SELECT doc -> ? AS v FROM ${table.sql} WHERE json_type(doc, ?) IS NOT NULL`).iterate(path, path) as IterableIterator<{ v: string }>) {
          if (!holdsPlainWords(JSON.parse(row.v))) {
            ix.plain = false;
            this.prepare("UPDATE _text SET plain = 0 WHERE collection = ? AND key = ?").run(table.name, key);
            break;
          }
        }
      }
      for (const old of table.text) if (!wanted.some((w) => w.ix.sql === old.sql)) this.db.exec(dropTextSql(old));
    });
    table.text = wanted.map(({ ix }) => table.text.find((t) => t.sql === ix.sql) ?? ix);
  }

  private setPath(table: Table, path: string, multikey: boolean): void {
    this.prepare("INSERT OR REPLACE INTO _paths (collection, path, multikey) VALUES (?, ?, ?)").run(table.name, path, multikey ? 1 : 0);
    const was = table.paths.get(path);
    table.paths.set(path, multikey);
    if (multikey && was !== true) {
      this.dropArrayIndexes(table);
      this.refreshMultikey(table);
    }
  }

  /** Reads from the stored documents whether an indexed field has held only Dates (or nothing). */
  private learnDates(table: Table, field: string): void {
    const p = jsonPathOf(field);
    const other = this.prepare(
      `SELECT 1 FROM ${table.sql} WHERE json_type(doc, ?) NOT IN ('null', 'object') OR (json_type(doc, ?) = 'object' AND json_type(doc, ?) IS NOT 'integer' AND json_type(doc, ?) IS NOT 'real') LIMIT 1`,
    ).get(p, p, `${p}."$$date"`, `${p}."$$date"`);
    this.setDates(table, field, other === undefined);
  }

  private setDates(table: Table, field: string, datesOnly: boolean): void {
    this.prepare("INSERT OR REPLACE INTO _dates (collection, path, dates_only) VALUES (?, ?, ?)").run(table.name, field, datesOnly ? 1 : 0);
    table.dates.set(field, datesOnly);
  }

  /** Reads from the stored documents whether an indexed field has held no number, boolean or Date (as a value or an element). */
  private learnStrings(table: Table, field: string): void {
    const p = jsonPathOf(field);
    const other = this.prepare(
      `SELECT 1 FROM ${table.sql}, json_each(CASE json_type(doc, ?) WHEN 'array' THEN json_extract(doc, ?) ELSE json_array(json(doc -> ?)) END) AS e_ ` +
        `WHERE e_.type IN ('integer', 'real', 'true', 'false') OR (e_.type = 'object' AND json_type(e_.value, '$."$$date"') IS NOT NULL) LIMIT 1`,
    ).get(p, p, p);
    this.setStrings(table, field, other === undefined);
  }

  private setStrings(table: Table, field: string, stringsOnly: boolean): void {
    this.prepare("INSERT OR REPLACE INTO _strings (collection, path, strings_only) VALUES (?, ?, ?)").run(table.name, field, stringsOnly ? 1 : 0);
    table.strings.set(field, stringsOnly);
  }

  /** Whether the field, or an object on its path, has held an array. */
  private holdsArrays(table: Table, field: string): boolean {
    return pathPrefixes(field).some((p) => table.paths.get(p) === true);
  }

  /**
   * One key per document cannot stand for an array (matching is by element), so queries never use an index
   * on a field once it has held one; its SQL index would only cost writes and disk, and is dropped. The
   * index stays declared (ensureIndex is still idempotent), and a unique one keeps its index.
   */
  private dropArrayIndexes(table: Table): void {
    for (const ix of this.prepare("SELECT * FROM _indexes WHERE collection = ?").all(table.name) as IndexMeta[]) {
      if (ix.is_unique === 1 && ix.sparse === 0) continue;
      if (Object.keys(JSON.parse(ix.fields) as object).some((f) => this.holdsArrays(table, f))) {
        this.db.exec(`DROP INDEX IF EXISTS ${quote(`ix_${indexHash(table.name, ix.key)}`)}`);
      }
    }
  }

  // ---- what written documents hold

  /**
   * Learns from a document about to be written what its indexed fields now hold (an array: the field's
   * indexes move to a side table; a value other than a Date; a number, boolean or Date; a string that is
   * not plain words), so that what is known of the collection stays true of every stored document.
   */
  observe(table: Table, doc: Stored): void {
    for (const [path, multikey] of table.paths) {
      if (!multikey && Array.isArray(model.getDotValue(doc, path))) this.setPath(table, path, true);
    }
    for (const [field, datesOnly] of table.dates) {
      if (!datesOnly) continue;
      const v: unknown = model.getDotValue(doc, field);
      if (v !== undefined && v !== null && !(v instanceof Date)) this.setDates(table, field, false);
    }
    for (const [field, stringsOnly] of table.strings) {
      if (stringsOnly && !holdsStringKeys(model.getDotValue(doc, field))) this.setStrings(table, field, false);
    }
    for (const ix of table.text) {
      if (ix.plain && !holdsPlainWords(model.getDotValue(doc, ix.field))) {
        ix.plain = false;
        this.prepare("UPDATE _text SET plain = 0 WHERE collection = ? AND field = ?").run(table.name, ix.field);
      }
    }
  }
}
