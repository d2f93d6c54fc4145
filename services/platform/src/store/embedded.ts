import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import { releaseLock, takeLock } from "./data-dir-lock";
import { convertNedbDataDir } from "./nedb-conversion";
import type { Collection, CountRow, CountSpec, Doc, DocumentStore, Filter, FindOptions, IndexSpec, Update, Write } from "./port";
import { SqliteCollection } from "./sqlite-collection";
import { configureSqlite, type WalSync } from "./sqlite-database";
import { expireAll, TTL_SWEEP_MS } from "./sqlite-expiry";
import { QueryPlanner } from "./sqlite-plan";
import { SqliteReads } from "./sqlite-reads";
import { SqliteSchema, type Stored, type Table } from "./sqlite-schema";
import { SqliteWrites } from "./sqlite-writes";

// The embedded store: one SQLite database per service (`<data dir>/store.sqlite`, or in memory for tests),
// one table per collection holding each document as JSON, the port's indexes as indexes on expressions of
// that JSON (see sqlite-keys.ts). Memory does not grow with the data: SQLite reads the pages a query needs.
//
// What a filter or an update means is decided in JavaScript by nedb's document model, the same code that
// decided it before the store moved to disk: SQL narrows the rows (through the indexes) and orders them when
// it can, and every row it returns is tested again. Commits are SQLite transactions in WAL mode, and a write
// resolves once it is on disk (a group commit, see sqlite-database.ts): a process killed at any moment
// reopens with every acknowledged write and none of a half-done commit.
//
// The store is in parts, each in its own file: what it knows of each collection's indexes and fields
// (sqlite-schema.ts), the statements reads run (sqlite-plan.ts), the reads (sqlite-reads.ts), the writes
// (sqlite-writes.ts), TTL expiry (sqlite-expiry.ts) and the port's Collection over them
// (sqlite-collection.ts). This file opens the database, puts them together and runs the minute's sweep.

export const STORE_FILE = "store.sqlite";
// Rows ANALYZE samples per index: enough for the planner to tell a selective index from one that is not,
// at a bounded cost (milliseconds) whatever the size of the collection.
const ANALYSIS_LIMIT = 1000;

export interface EmbeddedStoreOptions {
  /** The service's data directory; omitted = in memory (tests). */
  dir?: string;
  /**
   * `full` (default): every commit is fsynced before it resolves (commits made meanwhile share one fsync);
   * `normal`: it survives a process crash, not a power cut.
   */
  sync?: "full" | "normal";
  /** MiB of pages the database keeps in memory (EARSHOT_STORE_CACHE_MB; sqlite-database.ts). */
  cacheMb?: number;
}
export class SqliteStore implements DocumentStore {
  readonly kind = "embedded";
  private readonly schema: SqliteSchema;
  private readonly planner: QueryPlanner;
  private readonly reads: SqliteReads;
  private readonly writes: SqliteWrites;
  private readonly sweep: NodeJS.Timeout;
  private readonly walSync: WalSync | undefined;

  constructor(
    readonly db: Database.Database,
    private readonly dir: string | undefined,
    sync: "full" | "normal" = "full",
    cacheMb?: number,
  ) {
    this.walSync = configureSqlite(db, sync, cacheMb);
    this.schema = new SqliteSchema(db);
    this.planner = new QueryPlanner(this.schema);
    this.reads = new SqliteReads(this.schema, this.planner);
    this.writes = new SqliteWrites(this.schema, this.reads);
    db.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
    this.optimize();
    this.sweep = setInterval(() => {
      expireAll(this.schema);
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
    if (this.schema.closed) return;
    this.db.pragma("optimize = 0x10002");
  }

  transaction<R>(fn: () => R): R {
    return this.schema.transaction(fn);
  }

  table(name: string): Table {
    return this.schema.table(name);
  }

  collection<T extends Doc>(name: string): Collection<T> {
    return new SqliteCollection<T>(name, this);
  }

  ensureIndex(table: Table, spec: IndexSpec): void {
    this.schema.ensureIndex(table, spec);
  }

  // ---- writes

  insert(table: Table, doc: Stored): void {
    this.writes.insert(table, doc);
  }

  update(table: Table, filter: Filter, update: Update, multi: boolean, upsert: boolean): { matched: Stored[]; upserted?: Stored } {
    return this.writes.update(table, filter, update, multi, upsert);
  }

  delete(table: Table, filter: Filter, multi: boolean): number {
    return this.writes.delete(table, filter, multi);
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
      this.writes.commit(writes);
      return this.durable() ?? Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  // ---- reads

  byId(table: Table, id: string): Stored | null {
    return this.reads.byId(table, id);
  }

  find(table: Table, filter: Filter, options: FindOptions): Stored[] {
    return this.reads.find(table, filter, options);
  }

  count(table: Table, filter: Filter): number {
    return this.reads.count(table, filter);
  }

  countBy(table: Table, filter: Filter, spec: CountSpec): CountRow[] {
    return this.reads.countBy(table, filter, spec);
  }

  /** SQLite's plan for what `find` would run (EXPLAIN QUERY PLAN, one line per step): tests check index use with it. */
  explainFind(collection: string, filter: Filter, options: FindOptions = {}): string[] {
    return this.planner.explainFind(this.table(collection), filter, options);
  }

  /** SQLite's plan for the count of `filter` when SQL can say it exactly (null otherwise): tests check index use with it. */
  explainCount(collection: string, filter: Filter): string[] | null {
    return this.planner.explainCount(this.table(collection), filter);
  }

  /** SQLite's plan for countBy when SQL says it (null otherwise): tests check index use with it. */
  explainCountBy(collection: string, filter: Filter, spec: CountSpec): string[] | null {
    return this.planner.explainCountBy(this.table(collection), filter, spec);
  }

  async close(): Promise<void> {
    if (this.schema.closed) return;
    this.schema.closed = true;
    clearInterval(this.sweep);
    // Writes waiting for their flush get it before the database lets go of the log.
    await this.walSync?.close();
    this.db.close();
    if (this.dir) await releaseLock(this.dir);
  }
}

/** Opens a service's embedded store, converting a data directory the nedb store wrote (see nedb-conversion.ts). */
export const openEmbeddedStore = async (options: EmbeddedStoreOptions = {}): Promise<DocumentStore> => {
  if (!options.dir) return new SqliteStore(new Database(":memory:"), undefined);
  await mkdir(options.dir, { recursive: true });
  await takeLock(options.dir);
  try {
    const store = new SqliteStore(new Database(join(options.dir, STORE_FILE)), options.dir, options.sync, options.cacheMb);
    await convertNedbDataDir(options.dir, store);
    return store;
  } catch (err) {
    await releaseLock(options.dir);
    throw err;
  }
};
