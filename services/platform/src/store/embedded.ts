import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import * as model from "@seald-io/nedb/lib/model.js";
import Database from "better-sqlite3";
import { notFound } from "../errors";
import { assertFilter, assertIndex, assertPageLimit, assertUpsertFilter, findPageWith, normalizeUpdate, reconcileIndex, withoutUndefined } from "./checks";
import { releaseLock, takeLock } from "./data-dir-lock";
import { convertNedbDataDir } from "./nedb-conversion";
import { configureSqlite, type WalSync } from "./sqlite-database";
import { reviveDocument } from "./sqlite-documents";
import {
  type Collection,
  type CountRow,
  type CountSpec,
  type Doc,
  type DocumentStore,
  type Filter,
  type FindOptions,
  type IndexOptions,
  type IndexSpec,
  type Page,
  type PageOptions,
  UniqueViolationError,
  type Update,
  type UpdateResult,
  type UpsertOptions,
  VersionConflictError,
  type Write,
} from "./port";
import { assertCountSpec, countDocs, CountTable } from "./count-by";
import { bucketSql, holdsStringKeys, stringKeySql } from "./sqlite-count";
import { type Exactly, exactFilter, keyExpr, NULL_KEY, pathPrefixes, type SqlCondition, translateFilter } from "./sqlite-keys";
import { createTextSql, dropTextSql, fillTextSql, holdsPlainWords, isPlainWord, matchAll, type TextIndex, textIndex } from "./sqlite-text";
import { conjuncts, createMultikeySql, dropMultikeySql, fillMultikeySql, type MultikeyIndex, type MultikeyRange, multikeyRange, multikeyCountSql, multikeyField, multikeyIndex, multikeyPlan } from "./sqlite-multikey";

// The embedded store: one SQLite database per service (`<data dir>/store.sqlite`, or in memory for tests),
// one table per collection holding each document as JSON, the port's indexes as indexes on expressions of
// that JSON (see sqlite-keys.ts). Memory does not grow with the data: SQLite reads the pages a query needs.
//
// What a filter or an update means is decided in JavaScript by nedb's document model, the same code that
// decided it before the store moved to disk: SQL narrows the rows (through the indexes) and orders them when
// it can, and every row it returns is tested again. Commits are SQLite transactions in WAL mode, and a write
// resolves once it is on disk (a group commit, see sqlite-database.ts): a process killed at any moment
// reopens with every acknowledged write and none of a half-done commit.

export const STORE_FILE = "store.sqlite";
const TTL_SWEEP_MS = 60 * 1000;
// Rows ANALYZE samples per index: enough for the planner to tell a selective index from one that is not,
// at a bounded cost (milliseconds) whatever the size of the collection.
const ANALYSIS_LIMIT = 1000;
const STATEMENT_CACHE = 500;
// Up to this many documents holding a query's words, a read starts from the full-text index (and sorts
// them); beyond, it walks the order's index and tests each row (a page: the row's own words; an unbounded
// read: the words' rowids), so a page of a common word stops early. Either way no document that cannot
// match is handed to JavaScript.
const TEXT_DRIVE = 2000;
/** Reads of at most this many documents test a common word on each row they walk (see findQuery). */
const PAGE_WALK_LIMIT = 1000;

type Row = { doc: string };

/**
 * ORDER BY for a sort, ties by id as every read of the store breaks them. An id already sorted on is not
 * repeated: SQLite would sort each run of equal keys again for it instead of reading the index's order.
 */
const orderBySql = (sort: Record<string, 1 | -1>): string => {
  const terms = Object.entries(sort).map(([f, d]) => `${keyExpr(f)} ${d === 1 ? "ASC" : "DESC"}`);
  return ` ORDER BY ${[...terms, ...("_id" in sort ? [] : ["id"])].join(", ")}`;
};
type Stored = Doc & Record<string, unknown>;

interface IndexMeta {
  collection: string;
  key: string;
  fields: string;
  is_unique: number;
  sparse: number;
  expire: number | null;
}

interface Table {
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

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const isUniqueError = (err: unknown): boolean => {
  const code = (err as { code?: string }).code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
};

const withVersionBump = (update: Update): Record<string, unknown> => ({ ...update, $inc: { ...(update.$inc ?? {}), _v: 1 } });

const nextVersion = (w: Write, before: Doc | null): number => {
  if (w.kind === "insert") return w.doc._v ?? 1;
  if (w.kind === "replace" && w.expectedVersion !== undefined) return w.expectedVersion + 1;
  return (before?._v ?? 0) + 1;
};

/** nedb's sort: each field in turn by its comparison, ascending or descending. */
const compareBy = (sort: Record<string, 1 | -1>) => (a: unknown, b: unknown) => {
  for (const [field, dir] of Object.entries(sort)) {
    const c = model.compareThings(model.getDotValue(a, field), model.getDotValue(b, field));
    if (c !== 0) return c * dir;
  }
  return 0;
};

class SqliteCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly store: SqliteStore,
  ) {}

  private get table(): Table {
    return this.store.table(this.name);
  }

  /** Runs a read; it resolves once what it may have seen is on disk. */
  private guard<R>(fn: () => R): Promise<R> {
    return this.run(fn, false);
  }

  /** Runs a write; it resolves once it is on disk. */
  private write<R>(fn: () => R): Promise<R> {
    return this.run(fn, true);
  }

  private run<R>(fn: () => R, write: boolean): Promise<R> {
    let result: R;
    try {
      result = fn();
    } catch (err) {
      return Promise.reject(isUniqueError(err) ? new UniqueViolationError(this.name, (err as Error).message) : err);
    }
    const synced = write ? this.store.durable() : this.store.settled();
    return synced ? synced.then(() => result) : Promise.resolve(result);
  }

  ensureIndex(spec: IndexSpec): Promise<void> {
    return this.write(() => this.store.ensureIndex(this.table, spec));
  }

  insertOne(doc: T): Promise<T> {
    return this.write(() => {
      const stored = { ...withoutUndefined(doc), _v: doc._v ?? 1 } as Stored;
      this.store.insert(this.table, stored);
      return model.deepCopy(stored) as unknown as T;
    });
  }

  insertMany(docs: T[]): Promise<T[]> {
    return this.write(() => {
      const stored = docs.map((d) => ({ ...withoutUndefined(d), _v: d._v ?? 1 }) as Stored);
      this.store.transaction(() => stored.forEach((d) => this.store.insert(this.table, d)));
      return stored.map((d) => model.deepCopy(d) as unknown as T);
    });
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  findById(id: string): Promise<T | null> {
    return this.findOne({ _id: id });
  }

  find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return this.guard(() => {
      assertFilter(filter);
      return this.store.find(this.table, filter, options) as unknown as T[];
    });
  }

  async findPage(filter: Filter, options: PageOptions): Promise<Page<T>> {
    assertFilter(filter);
    assertPageLimit(options);
    return findPageWith((f, o) => this.find(f, o), filter, options);
  }

  count(filter: Filter): Promise<number> {
    return this.guard(() => {
      assertFilter(filter);
      return this.store.count(this.table, filter);
    });
  }

  countBy(filter: Filter, spec: CountSpec): Promise<CountRow[]> {
    return this.guard(() => {
      assertFilter(filter);
      assertCountSpec(spec);
      return this.store.countBy(this.table, filter, spec);
    });
  }

  updateOne(filter: Filter, update: Update, options: UpsertOptions = {}): Promise<UpdateResult> {
    return this.write(() => {
      const { matched, upserted } = this.store.update(this.table, filter, update, false, options.upsert ?? false);
      if (upserted) return { matchedCount: 0, modifiedCount: 0, upsertedId: upserted._id };
      return { matchedCount: matched.length, modifiedCount: matched.length };
    });
  }

  updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.write(() => {
      const { matched } = this.store.update(this.table, filter, update, true, false);
      return { matchedCount: matched.length, modifiedCount: matched.length };
    });
  }

  findOneAndUpdate(filter: Filter, update: Update, options: UpsertOptions = {}): Promise<T | null> {
    return this.write(() => {
      const { matched, upserted } = this.store.update(this.table, filter, update, false, options.upsert ?? false);
      return ((upserted ?? matched[0] ?? null) as unknown as T | null) ?? null;
    });
  }

  updateVersioned(id: string, expectedVersion: number, update: Update): Promise<T> {
    return this.write(() => {
      const { matched } = this.store.update(this.table, { _id: id, _v: expectedVersion }, update, false, false);
      if (matched[0]) return matched[0] as unknown as T;
      if (this.store.byId(this.table, id)) throw new VersionConflictError(this.name, id);
      throw notFound("Document");
    });
  }

  deleteOne(filter: Filter): Promise<number> {
    return this.write(() => this.store.delete(this.table, filter, false));
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.write(() => this.store.delete(this.table, filter, true));
  }
}

export interface EmbeddedStoreOptions {
  /** The service's data directory; omitted = in memory (tests). */
  dir?: string;
  /**
   * `full` (default): every commit is fsynced before it resolves (commits made meanwhile share one fsync);
   * `normal`: it survives a process crash, not a power cut.
   */
  sync?: "full" | "normal";
}

export class SqliteStore implements DocumentStore {
  readonly kind = "embedded";
  private readonly tables = new Map<string, Table>();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly sweep: NodeJS.Timeout;
  private closed = false;
  private readonly walSync: WalSync | undefined;

  constructor(
    readonly db: Database.Database,
    private readonly dir: string | undefined,
    sync: "full" | "normal" = "full",
  ) {
    this.walSync = configureSqlite(db, sync);
    db.exec(
      `CREATE TABLE IF NOT EXISTS _indexes (collection TEXT NOT NULL, key TEXT NOT NULL, fields TEXT NOT NULL, is_unique INTEGER NOT NULL,
         sparse INTEGER NOT NULL, expire INTEGER, PRIMARY KEY (collection, key));
       CREATE TABLE IF NOT EXISTS _paths (collection TEXT NOT NULL, path TEXT NOT NULL, multikey INTEGER NOT NULL, PRIMARY KEY (collection, path));
       CREATE TABLE IF NOT EXISTS _dates (collection TEXT NOT NULL, path TEXT NOT NULL, dates_only INTEGER NOT NULL, PRIMARY KEY (collection, path));
       CREATE TABLE IF NOT EXISTS _strings (collection TEXT NOT NULL, path TEXT NOT NULL, strings_only INTEGER NOT NULL, PRIMARY KEY (collection, path));
       CREATE TABLE IF NOT EXISTS _text (collection TEXT NOT NULL, key TEXT NOT NULL, field TEXT NOT NULL, plain INTEGER NOT NULL, PRIMARY KEY (collection, key));`,
    );
    db.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
    this.optimize();
    this.sweep = setInterval(() => {
      this.expireAll();
      this.optimize();
    }, TTL_SWEEP_MS);
    this.sweep.unref();
  }

  /**
   * Gives the query planner statistics (ANALYZE, sampled) for every table that has none or has grown or
   * shrunk about tenfold since it was last analyzed; a no-op otherwise. Without statistics SQLite prefers
   * an index that avoids sorting over one that selects: `{ projectId, $or: [{ authorKey }, { "author.id" }] }`
   * ordered by date would walk the whole project through its date index instead of the two author indexes.
   * Run at open and with the minute's sweep; the statements prepared so far are planned again.
   */
  optimize(): void {
    if (this.closed) return;
    this.db.pragma("optimize = 0x10002");
  }

  private prepare(sql: string): Database.Statement {
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

  collection<T extends Doc>(name: string): Collection<T> {
    return new SqliteCollection<T>(name, this);
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

  /** A field whose key may stand for it in SQL: indexed, and no array on its path, ever. */
  private usable(table: Table): (field: string) => boolean {
    return (field) => pathPrefixes(field).every((p) => table.paths.get(p) === false);
  }

  // ---- writes

  private serialize(table: Table, doc: Stored): string {
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
    return model.serialize(doc);
  }

  insert(table: Table, doc: Stored): void {
    this.prepare(`INSERT INTO ${table.sql} (id, doc) VALUES (?, ?)`).run(doc._id, this.serialize(table, doc));
  }

  private put(table: Table, doc: Stored): void {
    this.prepare(`INSERT INTO ${table.sql} (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`).run(
      doc._id,
      this.serialize(table, doc),
    );
  }

  private remove(table: Table, id: string): number {
    return this.prepare(`DELETE FROM ${table.sql} WHERE id = ?`).run(id).changes;
  }

  update(table: Table, filter: Filter, update: Update, multi: boolean, upsert: boolean): { matched: Stored[]; upserted?: Stored } {
    assertFilter(filter);
    const bumped = withVersionBump(normalizeUpdate(update));
    if (upsert) assertUpsertFilter(filter);
    return this.transaction(() => {
      const found = this.find(table, filter, multi ? {} : { limit: 1 });
      if (found.length === 0 && upsert) {
        const doc = model.modify(model.deepCopy(filter, true), bumped) as Stored;
        this.insert(table, doc);
        return { matched: [], upserted: doc };
      }
      const matched = found.map((doc) => {
        const next = model.modify(doc, bumped) as Stored;
        this.put(table, next);
        return next;
      });
      return { matched };
    });
  }

  delete(table: Table, filter: Filter, multi: boolean): number {
    assertFilter(filter);
    return this.transaction(() => this.find(table, filter, multi ? {} : { limit: 1 }).reduce((n, d) => n + this.remove(table, d._id), 0));
  }

  /** Resolves once every write made so far is as durable as the store's sync setting promises (undefined: nothing to wait for). */
  durable(): Promise<void> | undefined {
    return this.walSync?.sync();
  }

  /** For a read: resolves once the commits it may have seen are on disk (undefined: none is waiting). */
  settled(): Promise<void> | undefined {
    return this.walSync?.settled();
  }

  commit(writes: Write[]): Promise<void> {
    try {
      this.transaction(() => {
        // Every write's own precondition (a new _id, the expected version) is checked before any is applied,
        // so a clash on an _id (e.g. a racing run's effect record) is what a losing commit reports, rather
        // than a unique index clash of an earlier write of the same unit.
        const checked = writes.map((w) => {
          const table = this.table(w.collection);
          const id = w.kind === "delete" ? w.id : w.doc._id;
          const before = this.byId(table, id);
          if (w.kind === "insert" && before) throw new UniqueViolationError(w.collection, `duplicate key ${JSON.stringify(id)}`);
          if (w.kind === "replace" && w.expectedVersion !== undefined && (before?._v ?? -1) !== w.expectedVersion) {
            throw new VersionConflictError(w.collection, id);
          }
          return { w, table, id, before };
        });
        for (const { w, table, id, before } of checked) {
          if (w.kind === "delete") {
            this.remove(table, id);
            continue;
          }
          const doc = { ...withoutUndefined(w.doc), _v: nextVersion(w, before) } as Stored;
          try {
            // A document written earlier in this unit is there now, whatever `before` said.
            this.put(table, doc);
          } catch (err) {
            throw isUniqueError(err) ? new UniqueViolationError(w.collection, (err as Error).message) : err;
          }
        }
      });
      return this.durable() ?? Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  // ---- reads

  byId(table: Table, id: string): Stored | null {
    const row = this.prepare(`SELECT doc FROM ${table.sql} WHERE id = ?`).get(id) as Row | undefined;
    return row ? (reviveDocument(row.doc) as Stored) : null;
  }

  private rows(table: Table, where: SqlCondition | null, orderBy: string): IterableIterator<Row> {
    const sql = `SELECT doc FROM ${table.sql}${where ? ` WHERE ${where.sql}` : ""}${orderBy}`;
    return this.prepare(sql).iterate(...(where?.params ?? [])) as IterableIterator<Row>;
  }

  /** The statement `find` runs: SQL narrows (through an index or a side table) and orders when it can. */
  private findQuery(table: Table, filter: Filter, options: FindOptions): { sql: string; params: Array<string | number>; sortedInSql: boolean } {
    const usable = this.usable(table);
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
    return (this.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM ${ix.sql} WHERE ${ix.sql} MATCH ? LIMIT ${TEXT_DRIVE + 1})`).get(match) as { n: number }).n;
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

  /** SQLite's plan for what `find` would run (EXPLAIN QUERY PLAN, one line per step): tests check index use with it. */
  explainFind(collection: string, filter: Filter, options: FindOptions = {}): string[] {
    const { sql, params } = this.findQuery(this.table(collection), filter, options);
    return (this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail);
  }

  find(table: Table, filter: Filter, options: FindOptions): Stored[] {
    this.expire(table);
    const sort = options.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
    const skip = options.skip ?? 0;
    const limit = options.limit ?? Infinity;
    // One document by its id (most reads): its row, with no statement to build and no iterator to close.
    if (skip === 0 && limit >= 1 && typeof filter._id === "string" && Object.keys(filter).length === 1) {
      const doc = this.byId(table, filter._id);
      return doc && model.match(doc, filter) ? [doc] : [];
    }
    const { sql, params, sortedInSql } = this.findQuery(table, filter, options);
    const out: Stored[] = [];
    let skipped = 0;
    let lastId: string | undefined;
    for (const row of this.prepare(sql).iterate(...params) as IterableIterator<Row>) {
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

  /** Indexed fields known to have held nothing but Dates: a range on their key needs no type check. */
  private datesOnly(table: Table): (field: string) => boolean {
    return (field) => table.dates.get(field) === true;
  }

  /** Paths known never to have held an array (indexed ones: see setPath), whose keys stand for them in SQL. */
  private known(table: Table): (path: string) => boolean {
    return (path) => table.paths.get(path) === false;
  }

  /** SQLite's plan for the count of `filter` when SQL can say it exactly (null otherwise): tests check index use with it. */
  explainCount(collection: string, filter: Filter): string[] | null {
    const q = this.countQuery(this.table(collection), filter);
    if (!q) return null;
    return (this.db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as Array<{ detail: string }>).map((r) => r.detail);
  }

  /**
   * The statement counting `filter` when SQL says it exactly, or null: from an array field's side table
   * alone when the filter asks that field for some strings and says nothing the side table does not hold
   * (see multikeyCount), else over the collection's rows through its indexes.
   */
  private countQuery(table: Table, filter: Filter): SqlCondition | null {
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

  count(table: Table, filter: Filter): number {
    this.expire(table);
    const exact = this.countQuery(table, filter);
    if (exact) return (this.prepare(exact.sql).get(...exact.params) as { n: number }).n;
    let n = 0;
    for (const row of this.rows(table, translateFilter(filter, this.usable(table)), "")) {
      if (model.match(reviveDocument(row.doc), filter)) n += 1;
    }
    return n;
  }

  /** The statement countBy runs when the filter translates exactly (see exactFilter), or null. */
  private countByQuery(table: Table, filter: Filter, spec: CountSpec): { sql: string; params: Array<string | number>; keys: "string" | "json" } | null {
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
    const usable = this.usable(table);
    const equal = new Set(members.filter(([, v]) => typeof v === "string").map(([k]) => k));
    let best: { name: string; size: number } | undefined;
    for (const ix of this.prepare("SELECT * FROM _indexes WHERE collection = ?").all(table.name) as IndexMeta[]) {
      const ixFields = Object.keys(JSON.parse(ix.fields) as object);
      if ((ix.is_unique === 1 && ix.sparse === 0) || !ixFields.every((f) => f === "_id" || usable(f)) || !equal.has(ixFields[0] as string)) continue;
      const holds = (f: string) => f === "_id" || ixFields.includes(f);
      if (!fields.every(holds) || !members.every(([k, v]) => holds(k) || sideField(k) || words(k, v))) continue;
      const name = `ix_${indexHash(table.name, ix.key)}`;
      if (best && ixFields.length >= best.size) continue;
      if (this.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").get(name) !== undefined) best = { name, size: ixFields.length };
    }
    return best?.name;
  }

  /** SQLite's plan for countBy when SQL says it (null otherwise): tests check index use with it. */
  explainCountBy(collection: string, filter: Filter, spec: CountSpec): string[] | null {
    const q = this.countByQuery(this.table(collection), filter, spec);
    if (!q) return null;
    return (this.db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as Array<{ detail: string }>).map((r) => r.detail);
  }

  /**
   * countBy in SQL when the filter translates exactly: SQLite selects the rows through the indexes, buckets
   * the time with a SQL expression and groups by the field's key (from an index or a side table when the
   * field has held strings only, else its JSON); no document is parsed in JavaScript and nothing is called
   * back per row. Otherwise the matched documents are counted here.
   */
  countBy(table: Table, filter: Filter, spec: CountSpec): CountRow[] {
    this.expire(table);
    const q = this.countByQuery(table, filter, spec);
    if (!q) return countDocs(this.find(table, filter, {}), spec);
    const rows = this.prepare(q.sql).all(...q.params) as Array<{ b: number; k: string | null; n: number }>;
    if (q.keys === "string") return rows.map((r) => ({ bucket: r.b, key: r.k, count: r.n }));
    const counts = new CountTable();
    for (const row of rows) {
      const value = row.k === null ? null : (JSON.parse(row.k) as unknown);
      // Objects and Dates count under null, as the port says.
      counts.add(row.b, value !== null && typeof value === "object" ? null : (value as CountRow["key"]), row.n);
    }
    return counts.rows();
  }

  // ---- expiry

  /** Deletes the documents whose TTL has passed; run before every read of the collection and once a minute. */
  private expire(table: Table): void {
    for (const [field, seconds] of table.ttl) {
      const expr = keyExpr(field);
      // Only Dates expire (as on MongoDB); their key is a number, and json_type tells them from numbers.
      this.prepare(`DELETE FROM ${table.sql} WHERE ${expr} > ? AND ${expr} < ? AND json_type(doc, ?) = 'object'`).run(
        NULL_KEY,
        Date.now() - seconds * 1000,
        jsonPathOf(field),
      );
    }
  }

  private expireAll(): void {
    if (this.closed) return;
    for (const table of this.tables.values()) this.expire(table);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweep);
    // Writes waiting for their flush get it before the database lets go of the log.
    await this.walSync?.close();
    this.db.close();
    if (this.dir) await releaseLock(this.dir);
  }
}

const indexHash = (collection: string, key: string): string => createHash("sha1").update(`${collection}|${key}`).digest("hex").slice(0, 16);

const sqlText = (s: string): string => `'${s.replace(/'/g, "''")}'`;

const jsonPathOf = (field: string): string => `$.${field.split(".").map((p) => `"${p.replace(/"/g, '""')}"`).join(".")}`;

/** Opens a service's embedded store, converting a data directory the nedb store wrote (see nedb-conversion.ts). */
export const openEmbeddedStore = async (options: EmbeddedStoreOptions = {}): Promise<DocumentStore> => {
  if (!options.dir) return new SqliteStore(new Database(":memory:"), undefined);
  await mkdir(options.dir, { recursive: true });
  await takeLock(options.dir);
  try {
    const store = new SqliteStore(new Database(join(options.dir, STORE_FILE)), options.dir, options.sync);
    await convertNedbDataDir(options.dir, store);
    return store;
  } catch (err) {
    await releaseLock(options.dir);
    throw err;
  }
};
