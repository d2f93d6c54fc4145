import { type ClientSession, type Db, type Collection as MongoCollection, MongoClient } from "mongodb";
import { notFound } from "../errors";
import { assertFilter, assertIndex, assertUpsertFilter, findPageWith, indexOptionsOf, normalizeUpdate, reconcileIndex, withoutUndefined } from "./checks";
import {
  assertTransactionsSupported,
  findIndexWithKey,
  type HelloReply,
  type IndexDescription,
  indexOptionsOfDescription,
  isIndexConflict,
  isNamespaceNotFound,
  isTransactionsUnsupported,
} from "./mongo-support";
import { assertCountSpec } from "./count-by";
import { countByPipeline, countRowOf } from "./mongo-count";
import {
  type Collection,
  type CountRow,
  type CountSpec,
  type Doc,
  type DocumentStore,
  type Filter,
  type FindOptions,
  IndexConflictError,
  type IndexSpec,
  type Page,
  type PageOptions,
  ReplicaSetRequiredError,
  UniqueViolationError,
  type Update,
  type UpdateResult,
  type UpsertOptions,
  VersionConflictError,
  type Write,
} from "./port";

// The production adapter: the official driver, one database per service. Filters and updates are Mongo
// syntax already, so they pass through once the shared guards accepted them; the adapter only adds the
// version rule and maps driver errors onto the port's.

// The driver's generic Filter<T>/UpdateFilter<T> types fight a schema-less port, so the adapter talks to
// collections of plain objects and casts at the edges; the public surface stays typed.
type Raw = { _id: string } & Record<string, unknown>;
type RawCollection = MongoCollection<Raw>;

// BSON stores an `undefined` field as null, where the port means "absent" (see `withoutUndefined`, which every
// write applies first). The driver option is a second guard on writes whose filter the adapter builds
// itself; on a caller's filter it would make `{ email: undefined }` match every document, which is why the
// shared guards refuse undefined in filters instead.
const WITHOUT_UNDEFINED = { ignoreUndefined: true } as const;

const DUPLICATE_KEY = 11000;

const codeOf = (err: unknown): unknown => (typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined);

// A bulk write (insertMany) reports the first write error's code at the top, but an unordered one may have
// failed on something else first, so its write errors are looked at too.
const duplicateWriteError = (err: unknown): unknown => {
  const writeErrors = typeof err === "object" && err !== null ? (err as { writeErrors?: unknown }).writeErrors : undefined;
  return Array.isArray(writeErrors) ? writeErrors.find((w) => codeOf(w) === DUPLICATE_KEY) : undefined;
};

const isDuplicateKey = (err: unknown): boolean => codeOf(err) === DUPLICATE_KEY || duplicateWriteError(err) !== undefined;

// Same shape as the embedded adapter's detail; the server's own message also names the database, which
// callers have no use for. A bulk write error keeps the server's fields under `err`.
const duplicateDetail = (err: unknown): string => {
  const keyValue =
    (err as { keyValue?: unknown }).keyValue ?? (duplicateWriteError(err) as { err?: { keyValue?: unknown } } | undefined)?.err?.keyValue;
  if (keyValue !== undefined) return `duplicate key ${JSON.stringify(keyValue)}`;
  return err instanceof Error ? err.message : String(err);
};

/** The one place driver errors become port errors; every write goes through it. */
const toStoreError = (collection: string, err: unknown): unknown => {
  if (isDuplicateKey(err)) return new UniqueViolationError(collection, duplicateDetail(err));
  if (isTransactionsUnsupported(err)) return new ReplicaSetRequiredError(err instanceof Error ? err.message : String(err));
  return err;
};

// `$inc: {_v: 1}` alone also covers upserts: incrementing a missing field sets it, so an inserted document
// starts at 1. (A `$setOnInsert: {_v: 1}` next to it would be a conflicting update of the same path.)
const withVersionBump = (update: Update): Record<string, unknown> => ({ ...update, $inc: { ...(update.$inc ?? {}), _v: 1 } });

const withFirstVersion = (doc: Doc): Raw => ({ ...withoutUndefined(doc), _v: doc._v ?? 1 }) as unknown as Raw;

/** Runs `fn` in one transaction, retried as a whole on transient errors, so `fn` must only touch the session. */
type InTransaction = (fn: (session: ClientSession) => Promise<void>) => Promise<void>;

class MongoDocCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly raw: () => RawCollection,
    private readonly db: () => Db,
    private readonly inTransaction: InTransaction,
  ) {}

  private async run<R>(fn: (c: RawCollection) => Promise<R>): Promise<R> {
    try {
      return await fn(this.raw());
    } catch (err) {
      throw toStoreError(this.name, err);
    }
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    assertIndex(spec);
    // Looked at first so the outcome is the port's (see reconcileIndex), not createIndex's: it would fail with
    // an unmapped IndexOptionsConflict on other options and cannot change an expiry.
    const existing = findIndexWithKey(await this.indexes(), spec.fields);
    if (existing) {
      const decision = reconcileIndex(this.name, spec, indexOptionsOfDescription(existing));
      if (decision.action === "set-expiry") {
        await this.db().command({ collMod: this.name, index: { keyPattern: spec.fields, expireAfterSeconds: decision.expireAfterSeconds } });
      }
      return;
    }
    try {
      // A no-op when another process created the same index meanwhile.
      await this.raw().createIndex(spec.fields, {
        ...(spec.unique ? { unique: true } : {}),
        ...(spec.sparse ? { sparse: true } : {}),
        ...(spec.expireAfterSeconds !== undefined ? { expireAfterSeconds: spec.expireAfterSeconds } : {}),
      });
    } catch (err) {
      // Another process created it with other options between the look and the create.
      if (!isIndexConflict(err)) throw toStoreError(this.name, err);
      const raced = findIndexWithKey(await this.indexes(), spec.fields);
      throw new IndexConflictError(this.name, Object.keys(spec.fields), raced ? indexOptionsOfDescription(raced) : null, indexOptionsOf(spec));
    }
  }

  private async indexes(): Promise<IndexDescription[]> {
    try {
      return (await this.raw().indexes()) as unknown as IndexDescription[];
    } catch (err) {
      if (isNamespaceNotFound(err)) return [];
      throw err;
    }
  }

  async insertOne(doc: T): Promise<T> {
    const stored = withFirstVersion(doc);
    await this.run((c) => c.insertOne(stored, WITHOUT_UNDEFINED));
    return stored as unknown as T;
  }

  async insertMany(docs: T[]): Promise<T[]> {
    // The driver refuses an empty batch; the port treats it as nothing to do.
    if (docs.length === 0) return [];
    const stored = docs.map(withFirstVersion);
    if (stored.length === 1) {
      await this.run((c) => c.insertOne(stored[0] as Raw, WITHOUT_UNDEFINED));
      return stored as unknown as T[];
    }
    // All or nothing, as the port promises (and nedb does): a bulk insert alone keeps the documents before a
    // clash. Deleting them afterwards would not do: readers could see them meanwhile, and a crash in between
    // would leave them for good.
    await this.run((c) =>
      this.inTransaction(async (session) => {
        await c.insertMany(stored, { ...WITHOUT_UNDEFINED, ordered: true, session });
      }),
    );
    return stored as unknown as T[];
  }

  async findOne(filter: Filter): Promise<T | null> {
    assertFilter(filter);
    return (await this.run((c) => c.findOne(filter))) as unknown as T | null;
  }

  findById(id: string): Promise<T | null> {
    return this.findOne({ _id: id });
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    assertFilter(filter);
    return this.run(async (c) => {
      let cursor = c.find(filter);
      if (options.sort) cursor = cursor.sort(options.sort);
      if (options.skip) cursor = cursor.skip(options.skip);
      if (options.limit) cursor = cursor.limit(options.limit);
      return (await cursor.toArray()) as unknown as T[];
    });
  }

  findPage(filter: Filter, options: PageOptions): Promise<Page<T>> {
    // The shared routine asserts the filter and page limit, sorts by (field, _id), reads limit + 1 and builds
    // the cursor, so both adapters page identically.
    return findPageWith((f, o) => this.find(f, o), filter, options);
  }

  async count(filter: Filter): Promise<number> {
    assertFilter(filter);
    return this.run((c) => c.countDocuments(filter));
  }

  async countBy(filter: Filter, spec: CountSpec): Promise<CountRow[]> {
    assertFilter(filter);
    assertCountSpec(spec);
    const rows = await this.run((c) => c.aggregate<{ _id: { b: number; k: unknown }; n: number }>(countByPipeline(filter, spec)).toArray());
    return rows.map(countRowOf);
  }

  async updateOne(filter: Filter, update: Update, options: UpsertOptions = {}): Promise<UpdateResult> {
    const { upsert, normalized } = this.checkUpdate(filter, update, options);
    const res = await this.run((c) => c.updateOne(filter, withVersionBump(normalized), { upsert }));
    return {
      matchedCount: res.matchedCount,
      modifiedCount: res.modifiedCount,
      ...(res.upsertedId !== null && res.upsertedId !== undefined ? { upsertedId: String(res.upsertedId) } : {}),
    };
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    const { normalized } = this.checkUpdate(filter, update, {});
    const res = await this.run((c) => c.updateMany(filter, withVersionBump(normalized)));
    return { matchedCount: res.matchedCount, modifiedCount: res.modifiedCount };
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: UpsertOptions = {}): Promise<T | null> {
    const { upsert, normalized } = this.checkUpdate(filter, update, options);
    const doc = await this.run((c) => c.findOneAndUpdate(filter, withVersionBump(normalized), { upsert, returnDocument: "after" }));
    return doc as unknown as T | null;
  }

  async updateVersioned(id: string, expectedVersion: number, update: Update): Promise<T> {
    const normalized = normalizeUpdate(update);
    const doc = await this.run((c) =>
      c.findOneAndUpdate({ _id: id, _v: expectedVersion }, withVersionBump(normalized), { returnDocument: "after" }),
    );
    if (doc) return doc as unknown as T;
    // Nothing matched: either someone else moved the version on, or there is no such document. The extra read
    // can race with a delete or insert, but either answer was true at some moment, which is all callers get anyway.
    if (await this.findById(id)) throw new VersionConflictError(this.name, id);
    throw notFound("Document");
  }

  async deleteOne(filter: Filter): Promise<number> {
    assertFilter(filter);
    return (await this.run((c) => c.deleteOne(filter))).deletedCount;
  }

  async deleteMany(filter: Filter): Promise<number> {
    assertFilter(filter);
    return (await this.run((c) => c.deleteMany(filter))).deletedCount;
  }

  /** The guards every update entry point shares; returns whether to upsert and the update as the port means it. */
  private checkUpdate(filter: Filter, update: Update, options: UpsertOptions): { upsert: boolean; normalized: Update } {
    assertFilter(filter);
    const normalized = normalizeUpdate(update);
    const upsert = options.upsert ?? false;
    if (upsert) assertUpsertFilter(filter);
    return { upsert, normalized };
  }
}

class MongoStore implements DocumentStore {
  readonly kind = "mongodb";
  private closed = false;

  constructor(
    readonly client: MongoClient,
    private readonly database: string,
    private readonly ownsClient: boolean,
  ) {}

  private db(): Db {
    // The driver reconnects a closed client on the next operation; refusing here keeps a late caller from
    // quietly reopening connections after shutdown (and matches the embedded store).
    if (this.closed) throw new Error("The store is closed.");
    return this.client.db(this.database);
  }

  private raw(name: string): RawCollection {
    return this.db().collection<Raw>(name);
  }

  collection<T extends Doc>(name: string): Collection<T> {
    return new MongoDocCollection<T>(
      name,
      () => this.raw(name),
      () => this.db(),
      (fn) => this.inTransaction(fn),
    );
  }

  // A multi-document transaction. MongoDB runs these only on a replica set (or sharded cluster), which is
  // what production runs; a single-node replica set is enough for development and tests. withTransaction
  // retries the whole callback on transient errors (write conflicts, elections), so the callback must be
  // safe to run again: it only reads and writes inside the session.
  async commit(writes: Write[]): Promise<void> {
    if (writes.length === 0) return;
    await this.inTransaction(async (session) => {
      for (const w of writes) await this.apply(w, session);
    });
  }

  async inTransaction(fn: (session: ClientSession) => Promise<void>): Promise<void> {
    if (this.closed) throw new Error("The store is closed.");
    const session = this.client.startSession();
    try {
      await session.withTransaction(() => fn(session));
    } catch (err) {
      // Only reachable with a client opened elsewhere without the check at open (or a topology changed since).
      if (isTransactionsUnsupported(err)) throw new ReplicaSetRequiredError(err instanceof Error ? err.message : String(err));
      throw err;
    } finally {
      await session.endSession();
    }
  }

  // Errors are mapped per write so a unique clash names the collection it happened in. A port error is not a
  // MongoError, so withTransaction aborts and rethrows it rather than retrying.
  private async apply(w: Write, session: ClientSession): Promise<void> {
    const c = this.raw(w.collection);
    try {
      if (w.kind === "insert") {
        await c.insertOne(withFirstVersion(w.doc), { ...WITHOUT_UNDEFINED, session });
      } else if (w.kind === "delete") {
        await c.deleteOne({ _id: w.id }, { session });
      } else if (w.expectedVersion !== undefined) {
        const res = await c.replaceOne(
          { _id: w.doc._id, _v: w.expectedVersion },
          { ...withoutUndefined(w.doc), _v: w.expectedVersion + 1 },
          { ...WITHOUT_UNDEFINED, session },
        );
        if (res.matchedCount === 0) throw new VersionConflictError(w.collection, w.doc._id);
      } else {
        // Without an expected version the stored one still moves on by one (1 for a new document), as on the
        // embedded store. The read is inside the transaction: a concurrent change makes the write conflict and
        // the transaction retry, so the version cannot go backwards.
        const before = await c.findOne({ _id: w.doc._id }, { session, projection: { _v: 1 } });
        const version = (typeof before?._v === "number" ? before._v : 0) + 1;
        await c.replaceOne({ _id: w.doc._id }, { ...withoutUndefined(w.doc), _v: version }, { ...WITHOUT_UNDEFINED, session, upsert: true });
      }
    } catch (err) {
      throw toStoreError(w.collection, err);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }
}

export interface MongoStoreOptions {
  /** Connection string; a replica set, since `commit` needs transactions. Unused when `client` is given. */
  url: string;
  /** One database per service. */
  database: string;
  /** Share one client between stores; the store then leaves closing it to the owner. */
  client?: MongoClient;
}

const checkTopology = async (client: MongoClient): Promise<void> => {
  assertTransactionsSupported((await client.db("admin").command({ hello: 1 })) as HelloReply);
};

/** Opens the store; refuses (ReplicaSetRequiredError) a server that cannot run transactions. */
export const openMongoStore = async (options: MongoStoreOptions): Promise<DocumentStore & { client: MongoClient }> => {
  if (options.client) {
    await checkTopology(options.client);
    return new MongoStore(options.client, options.database, false);
  }
  // Connect up front so a wrong URL, an unreachable server or a standalone one fails at start, not at the
  // first request.
  const client = new MongoClient(options.url, { retryWrites: true, serverSelectionTimeoutMS: 10_000 });
  try {
    await client.connect();
    await checkTopology(client);
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
  return new MongoStore(client, options.database, true);
};
