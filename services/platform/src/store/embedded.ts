import { createHash } from "node:crypto";
import { type FileHandle, mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import * as model from "@seald-io/nedb/lib/model.js";
import Database from "better-sqlite3";
import { notFound } from "../errors";
import { assertFilter, assertIndex, assertPageLimit, assertUpsertFilter, findPageWith, normalizeUpdate, reconcileIndex, withoutUndefined } from "./checks";
import { releaseLock, takeLock } from "./data-dir-lock";
import { convertNedbDataDir } from "./nedb-conversion";
import {
  type Collection,
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
import { keyExpr, NULL_KEY, pathPrefixes, type SqlCondition, translateFilter } from "./sqlite-keys";

// The embedded store: one SQLite database per service (`<data dir>/store.sqlite`, or in memory for tests),
// one table per collection holding each document as JSON, the port's indexes as indexes on expressions of
// that JSON (see sqlite-keys.ts). Memory does not grow with the data: SQLite reads the pages a query needs.
//
// What a filter or an update means is decided in JavaScript by nedb's document model, the same code that
// decided it before the store moved to disk: SQL narrows the rows (through the indexes) and orders them when
// it can, and every row it returns is tested again. Commits are SQLite transactions in WAL mode: when a
// write resolves, it is on disk, and a process killed at any moment reopens with every acknowledged write
// and none of a half-done commit.
//
// Group commit (sync `full`, the default on disk): SQLite runs with synchronous=NORMAL, so a commit writes
// its frames to the log without waiting for the disk, and the store then fsyncs the log itself, off the
// event loop, once for every commit made meanwhile. A write resolves only after an fsync that began after
// it, and a read resolves only after the fsync covering what it may have seen, so nothing a caller gets
// from the store can be lost in a power cut. Before, every commit fsynced on the event loop (synchronous=FULL):
// about 1 ms each, during which nothing else ran.

export const STORE_FILE = "store.sqlite";
const TTL_SWEEP_MS = 60 * 1000;
const STATEMENT_CACHE = 500;

type Row = { doc: string };
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
  /** The write-ahead log, fsynced by the store itself when commits must reach the disk before they resolve. */
  private readonly walPath: string | undefined;
  private wal: Promise<FileHandle> | undefined;
  /** The next fsync: covers every commit made before it starts. */
  private nextSync: Promise<void> | undefined;
  /** The fsync under way, which may have started before the latest commits. */
  private runningSync: Promise<void> | undefined;

  constructor(
    readonly db: Database.Database,
    private readonly dir: string | undefined,
    sync: "full" | "normal" = "full",
  ) {
    db.pragma("journal_mode = WAL");
    // NORMAL in WAL mode: a commit is in the log (the OS has it) before it resolves, so it survives kill -9;
    // SQLite still syncs the log before a checkpoint and the database after it. With `full`, the store also
    // fsyncs the log before a commit resolves (see above), so an acknowledged write survives a power cut.
    db.pragma("synchronous = NORMAL");
    this.walPath = dir && sync === "full" ? `${db.name}-wal` : undefined;
    db.pragma("busy_timeout = 5000");
    db.exec(
      `CREATE TABLE IF NOT EXISTS _indexes (collection TEXT NOT NULL, key TEXT NOT NULL, fields TEXT NOT NULL, is_unique INTEGER NOT NULL,
         sparse INTEGER NOT NULL, expire INTEGER, PRIMARY KEY (collection, key));
       CREATE TABLE IF NOT EXISTS _paths (collection TEXT NOT NULL, path TEXT NOT NULL, multikey INTEGER NOT NULL, PRIMARY KEY (collection, path));`,
    );
    this.sweep = setInterval(() => this.expireAll(), TTL_SWEEP_MS);
    this.sweep.unref();
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

  /** Resolves once every commit made so far is on disk (undefined when nothing needs waiting for). */
  durable(): Promise<void> | undefined {
    if (!this.walPath) return undefined;
    this.nextSync ??= (async () => {
      // Commits made while an fsync runs may be missed by it: the next one starts after it.
      await this.runningSync?.catch(() => undefined);
      this.nextSync = undefined;
      const running = this.fsyncWal();
      this.runningSync = running;
      try {
        await running;
      } finally {
        if (this.runningSync === running) this.runningSync = undefined;
      }
    })();
    return this.nextSync;
  }

  /** For a read: resolves once the commits it may have seen are on disk. */
  settled(): Promise<void> | undefined {
    return this.nextSync ?? this.runningSync;
  }

  private async fsyncWal(): Promise<void> {
    this.wal ??= open(this.walPath as string, "r");
    try {
      await (await this.wal).sync();
    } catch (err) {
      this.wal = undefined;
      throw err;
    }
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
    table = { name, sql, paths: new Map(), ttl: new Map() };
    for (const p of this.prepare("SELECT path, multikey FROM _paths WHERE collection = ?").all(name) as Array<{ path: string; multikey: number }>) {
      table.paths.set(p.path, p.multikey === 1);
    }
    for (const ix of this.prepare("SELECT * FROM _indexes WHERE collection = ?").all(name) as IndexMeta[]) {
      if (ix.expire !== null) table.ttl.set(Object.keys(JSON.parse(ix.fields) as object)[0] as string, ix.expire);
    }
    this.tables.set(name, table);
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
        return;
      }
      const hash = createHash("sha1").update(`${table.name}|${key}`).digest("hex").slice(0, 16);
      const exprs = fields.map(keyExpr);
      if (spec.unique) {
        // Missing and null share one key, so a unique index holds one document without its fields, unless sparse.
        const where = spec.sparse ? ` WHERE ${exprs.map((e) => `${e} > -9e999`).join(" OR ")}` : "";
        this.db.exec(`CREATE UNIQUE INDEX ${quote(`ux_${hash}`)} ON ${table.sql} (${exprs.join(", ")})${where}`);
      }
      if (!spec.unique || spec.sparse) {
        // The index queries use: every document, `_id` last so that ties are walked in id order.
        this.db.exec(`CREATE INDEX ${quote(`ix_${hash}`)} ON ${table.sql} (${[...exprs, "id"].join(", ")})`);
      }
      this.prepare("INSERT INTO _indexes (collection, key, fields, is_unique, sparse, expire) VALUES (?, ?, ?, ?, ?, ?)").run(
        table.name,
        key,
        JSON.stringify(spec.fields),
        spec.unique ? 1 : 0,
        spec.sparse ? 1 : 0,
        spec.expireAfterSeconds ?? null,
      );
      for (const path of fields.flatMap(pathPrefixes)) {
        if (table.paths.has(path)) continue;
        const arrays = this.prepare(`SELECT 1 FROM ${table.sql} WHERE json_type(doc, ?) = 'array' LIMIT 1`).get(jsonPathOf(path));
        this.setPath(table, path, arrays !== undefined);
      }
      if (spec.expireAfterSeconds !== undefined) table.ttl.set(fields[0] as string, spec.expireAfterSeconds);
    });
  }

  private setPath(table: Table, path: string, multikey: boolean): void {
    this.prepare("INSERT OR REPLACE INTO _paths (collection, path, multikey) VALUES (?, ?, ?)").run(table.name, path, multikey ? 1 : 0);
    table.paths.set(path, multikey);
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
    return row ? (model.deserialize(row.doc) as Stored) : null;
  }

  private rows(table: Table, where: SqlCondition | null, orderBy: string): IterableIterator<Row> {
    const sql = `SELECT doc FROM ${table.sql}${where ? ` WHERE ${where.sql}` : ""}${orderBy}`;
    return this.prepare(sql).iterate(...(where?.params ?? [])) as IterableIterator<Row>;
  }

  find(table: Table, filter: Filter, options: FindOptions): Stored[] {
    this.expire(table);
    const usable = this.usable(table);
    const where = translateFilter(filter, usable);
    const sort = options.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
    const skip = options.skip ?? 0;
    const limit = options.limit ?? Infinity;
    const sortedInSql = !sort || Object.keys(sort).every((f) => f === "_id" || usable(f));
    const orderBy = sort && sortedInSql ? ` ORDER BY ${[...Object.entries(sort).map(([f, d]) => `${keyExpr(f)} ${d === 1 ? "ASC" : "DESC"}`), "id"].join(", ")}` : "";
    const out: Stored[] = [];
    let skipped = 0;
    for (const row of this.rows(table, where, orderBy)) {
      const doc = model.deserialize(row.doc) as Stored;
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

  count(table: Table, filter: Filter): number {
    this.expire(table);
    if (Object.keys(filter).length === 0) return (this.prepare(`SELECT count(*) AS n FROM ${table.sql}`).get() as { n: number }).n;
    let n = 0;
    for (const row of this.rows(table, translateFilter(filter, this.usable(table)), "")) {
      if (model.match(model.deserialize(row.doc), filter)) n += 1;
    }
    return n;
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
    await this.settled()?.catch(() => undefined);
    const wal = this.wal;
    this.wal = undefined;
    if (wal) await (await wal.catch(() => undefined))?.close();
    this.db.close();
    if (this.dir) await releaseLock(this.dir);
  }
}

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
