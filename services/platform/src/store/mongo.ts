import { type ClientSession, type Collection as MongoCollection, MongoClient, MongoServerError } from "mongodb";
import { notFound } from "../errors";
import {
  assertFilter,
  assertIndex,
  assertUpdate,
  assertUpsertFilter,
  findPageWith,
} from "./checks";
import {
  type Collection,
  type Doc,
  type DocumentStore,
  type Filter,
  type FindOptions,
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

// The production adapter: the official driver, one database per service. Filters and updates are Mongo
// syntax already; the adapter only applies the port's guards and version rule and maps errors.

// The driver's generic filter types fight a schema-less port; documents are plain objects here.
type Raw = Record<string, unknown>;
type RawCollection = MongoCollection<Raw>;

const isDuplicateKey = (err: unknown): boolean =>
  err instanceof MongoServerError
    ? err.code === 11000 || (Array.isArray((err as { writeErrors?: unknown[] }).writeErrors) && (err as { code?: number }).code === 11000)
    : typeof err === "object" && err !== null && (err as { code?: number }).code === 11000;

const mapError = (collection: string, err: unknown): unknown =>
  isDuplicateKey(err) ? new UniqueViolationError(collection, (err as Error).message) : err;

const bumpVersion = (update: Update): Raw => ({ ...update, $inc: { ...(update.$inc ?? {}), _v: 1 } });

class MongoDocCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly raw: RawCollection,
  ) {}

  private async run<R>(fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (err) {
      throw mapError(this.name, err);
    }
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    assertIndex(spec);
    await this.run(() =>
      this.raw.createIndex(spec.fields, {
        ...(spec.unique ? { unique: true } : {}),
        ...(spec.sparse ? { sparse: true } : {}),
        ...(spec.expireAfterSeconds !== undefined ? { expireAfterSeconds: spec.expireAfterSeconds } : {}),
      }),
    );
  }

  async insertOne(doc: T): Promise<T> {
    const stored = { ...doc, _v: doc._v ?? 1 } as unknown as Raw;
    await this.run(() => this.raw.insertOne(stored));
    return stored as unknown as T;
  }

  async insertMany(docs: T[]): Promise<T[]> {
    if (docs.length === 0) return [];
    const stored = docs.map((d) => ({ ...d, _v: d._v ?? 1 }) as unknown as Raw);
    await this.run(() => this.raw.insertMany(stored, { ordered: true }));
    return stored as unknown as T[];
  }

  async findOne(filter: Filter): Promise<T | null> {
    assertFilter(filter);
    return (await this.run(() => this.raw.findOne(filter))) as unknown as T | null;
  }

  findById(id: string): Promise<T | null> {
    return this.findOne({ _id: id });
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    assertFilter(filter);
    return this.run(async () => {
      let cursor = this.raw.find(filter);
      if (options.sort) cursor = cursor.sort(options.sort);
      if (options.skip) cursor = cursor.skip(options.skip);
      if (options.limit) cursor = cursor.limit(options.limit);
      return (await cursor.toArray()) as unknown as T[];
    });
  }

  findPage(filter: Filter, options: PageOptions): Promise<Page<T>> {
    return findPageWith((f, o) => this.find(f, o), filter, options);
  }

  async count(filter: Filter): Promise<number> {
    assertFilter(filter);
    return this.run(() => this.raw.countDocuments(filter));
  }

  async updateOne(filter: Filter, update: Update, options: UpsertOptions = {}): Promise<UpdateResult> {
    assertFilter(filter);
    assertUpdate(update);
    if (options.upsert) assertUpsertFilter(filter);
    const res = await this.run(() => this.raw.updateOne(filter, bumpVersion(update), { upsert: options.upsert ?? false }));
    return {
      matchedCount: res.matchedCount,
      modifiedCount: res.modifiedCount,
      ...(res.upsertedId !== null && res.upsertedId !== undefined ? { upsertedId: String(res.upsertedId) } : {}),
    };
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    assertFilter(filter);
    assertUpdate(update);
    const res = await this.run(() => this.raw.updateMany(filter, bumpVersion(update)));
    return { matchedCount: res.matchedCount, modifiedCount: res.modifiedCount };
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: UpsertOptions = {}): Promise<T | null> {
    assertFilter(filter);
    assertUpdate(update);
    if (options.upsert) assertUpsertFilter(filter);
    const doc = await this.run(() =>
      this.raw.findOneAndUpdate(filter, bumpVersion(update), { upsert: options.upsert ?? false, returnDocument: "after" }),
    );
    return doc as unknown as T | null;
  }

  async updateVersioned(id: string, expectedVersion: number, update: Update): Promise<T> {
    assertUpdate(update);
    const doc = await this.run(() =>
      this.raw.findOneAndUpdate({ _id: id, _v: expectedVersion } as Raw, bumpVersion(update), { returnDocument: "after" }),
    );
    if (doc) return doc as unknown as T;
    if (await this.findById(id)) throw new VersionConflictError(this.name, id);
    throw notFound("Document");
  }

  async deleteOne(filter: Filter): Promise<number> {
    assertFilter(filter);
    return (await this.run(() => this.raw.deleteOne(filter))).deletedCount;
  }

  async deleteMany(filter: Filter): Promise<number> {
    assertFilter(filter);
    return (await this.run(() => this.raw.deleteMany(filter))).deletedCount;
  }
}

class MongoStore implements DocumentStore {
  readonly kind = "mongodb";

  constructor(
    readonly client: MongoClient,
    private readonly database: string,
    private readonly ownsClient: boolean,
  ) {}

  private raw(name: string): RawCollection {
    return this.client.db(this.database).collection<Raw>(name);
  }

  collection<T extends Doc>(name: string): Collection<T> {
    return new MongoDocCollection<T>(name, this.raw(name));
  }

  // A multi-document transaction; MongoDB allows these on replica sets only, which is what production runs
  // (a single-node replica set is enough for development).
  async commit(writes: Write[]): Promise<void> {
    if (writes.length === 0) return;
    const session = this.client.startSession();
    try {
      await session.withTransaction(async () => {
        for (const w of writes) await this.applyWrite(w, session);
      });
    } catch (err) {
      const collection = writes.find((w) => isDuplicateKey(err) && w.kind !== "delete")?.collection ?? "unit of work";
      throw mapError(collection, err);
    } finally {
      await session.endSession();
    }
  }

  private async applyWrite(w: Write, session: ClientSession): Promise<void> {
    const c = this.raw(w.collection);
    if (w.kind === "insert") {
      await c.insertOne({ ...w.doc, _v: w.doc._v ?? 1 } as unknown as Raw, { session });
    } else if (w.kind === "delete") {
      await c.deleteOne({ _id: w.id } as Raw, { session });
    } else if (w.expectedVersion !== undefined) {
      const res = await c.replaceOne({ _id: w.doc._id, _v: w.expectedVersion } as Raw, { ...w.doc, _v: w.expectedVersion + 1 } as unknown as Raw, {
        session,
      });
      if (res.matchedCount === 0) throw new VersionConflictError(w.collection, w.doc._id);
    } else {
      const before = await c.findOne({ _id: w.doc._id } as Raw, { session, projection: { _v: 1 } });
      const version = (typeof before?._v === "number" ? before._v : 0) + 1;
      await c.replaceOne({ _id: w.doc._id } as Raw, { ...w.doc, _v: version } as unknown as Raw, { session, upsert: true });
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}

export interface MongoStoreOptions {
  url: string;
  database: string;
  /** Share one client between stores; the store then leaves closing it to the owner. */
  client?: MongoClient;
}

export const openMongoStore = async (options: MongoStoreOptions): Promise<DocumentStore & { client: MongoClient }> => {
  const client = options.client ?? new MongoClient(options.url, { retryWrites: true, serverSelectionTimeoutMS: 10_000 });
  if (!options.client) await client.connect();
  return new MongoStore(client, options.database, !options.client);
};
