import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Datastore from "@seald-io/nedb";
import { notFound } from "../errors";
import { assertFilter, assertIndex, assertPageLimit, assertUpsertFilter, findPageWith, normalizeUpdate, reconcileIndex, withoutUndefined } from "./checks";
import { type NedbInternals, walkIndexPage } from "./nedb-index-walk";
import { Mutex } from "./mutex";
import { assertCountSpec, countDocs } from "./count-by";
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

// The embedded store before SQLite: nedb, one append-only file per collection under the service's data dir,
// every document held in memory. It is kept only to read such a directory once and convert it (see
// nedb-conversion.ts); the caller holds the directory's lock. nedb has no transactions, so `commit` keeps a redo journal: the after-images of
// a unit of work are written to `_journal.db` first, applied, then the entry is removed; an entry found
// at open time belongs to a commit that was decided but maybe not applied, and is applied again.

type AnyDatastore = Datastore<Record<string, unknown>>;

/** The parts of nedb's Datastore that its typings leave out and ensureIndex needs. */
interface NedbIndexes {
  indexes: Record<string, { unique: boolean; sparse: boolean } | undefined>;
  ttlIndexes: Record<string, number>;
}

/** The options an index was ensured with, by `<collection>|<nedb index name>`. */
interface IndexRecord {
  _id: string;
  unique: boolean;
  sparse: boolean;
  expireAfterSeconds?: number;
}

interface Image {
  collection: string;
  id: string;
  doc: Doc | null;
}

interface JournalEntry {
  _id: string;
  afters: Image[];
  befores: Image[];
}

const JOURNAL = "_journal";
// nedb's file records an index's unique and sparse options but not its expiry, so a restart would forget
// whether (and after how long) an index expires; the options are kept here as well.
const INDEXES = "_indexes";
const COMPACT_EVERY_MS = 10 * 60 * 1000;

const toStoreError = (collection: string, err: unknown): unknown => {
  const e = err as { errorType?: string; key?: unknown };
  if (e && e.errorType === "uniqueViolated") return new UniqueViolationError(collection, `duplicate key ${JSON.stringify(e.key)}`);
  return err;
};

const withVersionBump = (update: Update): Record<string, unknown> => ({
  ...update,
  $inc: { ...(update.$inc ?? {}), _v: 1 },
});

const strip = <T extends Doc | null>(doc: unknown): T => doc as T;

class EmbeddedCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly ds: () => Promise<AnyDatastore>,
    private readonly indexRecords: () => Promise<AnyDatastore>,
  ) {}

  private async run<R>(fn: (ds: AnyDatastore) => Promise<R>): Promise<R> {
    const ds = await this.ds();
    try {
      return await fn(ds);
    } catch (err) {
      throw toStoreError(this.name, err);
    }
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    assertIndex(spec);
    const fields = Object.keys(spec.fields);
    // nedb's name for the index: one index per set of fields, whatever their order and direction.
    const indexName = [...fields].sort().join(",");
    const recordId = `${this.name}|${indexName}`;
    const records = await this.indexRecords();
    await this.run(async (ds) => {
      const record = (await records.findOneAsync({ _id: recordId })) as unknown as IndexRecord | null;
      const nedb = ds as unknown as NedbIndexes;
      // Looked at and created with no await in between, so a concurrent ensureIndex cannot slip in.
      const live = nedb.indexes[indexName];
      if (live) {
        // Without a record the index predates them; its expiry was never kept, so the one asked for is taken.
        const expiry = record ? record.expireAfterSeconds : spec.expireAfterSeconds;
        const existing: IndexOptions = { unique: live.unique, sparse: live.sparse, ...(expiry !== undefined ? { expireAfterSeconds: expiry } : {}) };
        reconcileIndex(this.name, spec, existing);
        if (spec.expireAfterSeconds !== undefined) nedb.ttlIndexes[indexName] = spec.expireAfterSeconds;
      } else {
        await ds.ensureIndexAsync({
          fieldName: fields.length === 1 ? (fields[0] as string) : fields,
          ...(spec.unique ? { unique: true } : {}),
          ...(spec.sparse ? { sparse: true } : {}),
          ...(spec.expireAfterSeconds !== undefined ? { expireAfterSeconds: spec.expireAfterSeconds } : {}),
        });
      }
      const next: IndexRecord = {
        _id: recordId,
        unique: spec.unique ?? false,
        sparse: spec.sparse ?? false,
        ...(spec.expireAfterSeconds !== undefined ? { expireAfterSeconds: spec.expireAfterSeconds } : {}),
      };
      if (JSON.stringify(record) !== JSON.stringify(next)) {
        await records.updateAsync({ _id: recordId }, next as unknown as Record<string, unknown>, { upsert: true });
      }
    });
  }

  async insertOne(doc: T): Promise<T> {
    const stored = { ...withoutUndefined(doc), _v: doc._v ?? 1 };
    return strip<T>(await this.run((ds) => ds.insertAsync(stored as unknown as Record<string, unknown>)));
  }

  async insertMany(docs: T[]): Promise<T[]> {
    if (docs.length === 0) return [];
    const stored = docs.map((d) => ({ ...withoutUndefined(d), _v: d._v ?? 1 }) as unknown as Record<string, unknown>);
    // nedb inserts an array all or nothing: a unique clash, with a stored document or within the batch, undoes
    // the batch's index entries before anything is kept or written to the file.
    return (await this.run((ds) => ds.insertAsync(stored))).map((d) => strip<T>(d));
  }

  async findOne(filter: Filter): Promise<T | null> {
    assertFilter(filter);
    return strip<T | null>(await this.run(async (ds) => (await ds.findOneAsync(filter)) ?? null));
  }

  findById(id: string): Promise<T | null> {
    return this.findOne({ _id: id });
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    assertFilter(filter);
    return this.run(async (ds) => {
      let cursor = ds.findAsync(filter);
      if (options.sort) cursor = cursor.sort(options.sort);
      if (options.skip) cursor = cursor.skip(options.skip);
      if (options.limit) cursor = cursor.limit(options.limit);
      return (await cursor) as unknown as T[];
    });
  }

  async findPage(filter: Filter, options: PageOptions): Promise<Page<T>> {
    assertFilter(filter);
    assertPageLimit(options);
    // A page of an equality ordered by an indexed field walks the index; any other shape sorts every match.
    const walked = await this.run(async (ds) => walkIndexPage<T>(ds as unknown as NedbInternals, filter, options));
    return walked ?? findPageWith((f, o) => this.find(f, o), filter, options);
  }

  async count(filter: Filter): Promise<number> {
    assertFilter(filter);
    return this.run(async (ds) => (await ds.countAsync(filter)) as unknown as number);
  }

  async countBy(filter: Filter, spec: CountSpec): Promise<CountRow[]> {
    assertCountSpec(spec);
    return countDocs(await this.find(filter), spec);
  }

  async updateOne(filter: Filter, update: Update, options: UpsertOptions = {}): Promise<UpdateResult> {
    return this.update(filter, update, false, options.upsert ?? false);
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.update(filter, update, true, false);
  }

  private async update(filter: Filter, update: Update, multi: boolean, upsert: boolean): Promise<UpdateResult> {
    assertFilter(filter);
    const normalized = normalizeUpdate(update);
    if (upsert) assertUpsertFilter(filter);
    const res = await this.run((ds) => ds.updateAsync(filter, withVersionBump(normalized), { multi, upsert, returnUpdatedDocs: false }));
    if (res.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedId: filter._id as string };
    return { matchedCount: res.numAffected, modifiedCount: res.numAffected };
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: UpsertOptions = {}): Promise<T | null> {
    assertFilter(filter);
    const normalized = normalizeUpdate(update);
    const upsert = options.upsert ?? false;
    if (upsert) assertUpsertFilter(filter);
    const res = await this.run((ds) =>
      ds.updateAsync(filter, withVersionBump(normalized), { multi: false, upsert, returnUpdatedDocs: true }),
    );
    return strip<T | null>(res.affectedDocuments ?? null);
  }

  async updateVersioned(id: string, expectedVersion: number, update: Update): Promise<T> {
    const normalized = normalizeUpdate(update);
    const res = await this.run((ds) =>
      ds.updateAsync({ _id: id, _v: expectedVersion }, withVersionBump(normalized), { multi: false, upsert: false, returnUpdatedDocs: true }),
    );
    if (res.affectedDocuments) return strip<T>(res.affectedDocuments);
    if (await this.findById(id)) throw new VersionConflictError(this.name, id);
    throw notFound("Document");
  }

  async deleteOne(filter: Filter): Promise<number> {
    assertFilter(filter);
    return this.run((ds) => ds.removeAsync(filter, { multi: false }));
  }

  async deleteMany(filter: Filter): Promise<number> {
    assertFilter(filter);
    return this.run((ds) => ds.removeAsync(filter, { multi: true }));
  }
}

export interface NedbStoreOptions {
  /** Directory of the collection files; omitted = in memory (tests). */
  dir?: string;
}

class EmbeddedStore implements DocumentStore {
  readonly kind = "embedded";
  private readonly datastores = new Map<string, Promise<AnyDatastore>>();
  private readonly commitLock = new Mutex();
  private closed = false;

  constructor(private readonly dir: string | undefined) {}

  datastore(name: string): Promise<AnyDatastore> {
    if (this.closed) return Promise.reject(new Error("The store is closed."));
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) return Promise.reject(new Error(`Bad collection name ${name}`));
    let ds = this.datastores.get(name);
    if (!ds) {
      ds = (async () => {
        if (this.dir) await repairTornTail(join(this.dir, `${name}.db`));
        const store: AnyDatastore = this.dir
          ? new Datastore({ filename: join(this.dir, `${name}.db`), corruptAlertThreshold: 0 })
          : new Datastore({ inMemoryOnly: true });
        await store.loadDatabaseAsync();
        if (this.dir) store.setAutocompactionInterval(COMPACT_EVERY_MS);
        return store;
      })();
      this.datastores.set(name, ds);
    }
    return ds;
  }

  collection<T extends Doc>(name: string): Collection<T> {
    return new EmbeddedCollection<T>(name, () => this.datastore(name), () => this.datastore(INDEXES));
  }

  commit(writes: Write[]): Promise<void> {
    if (writes.length === 0) return Promise.resolve();
    return this.commitLock.run(async () => {
      const befores: Image[] = [];
      const afters: Image[] = [];
      for (const w of writes) {
        const id = w.kind === "delete" ? w.id : w.doc._id;
        const ds = await this.datastore(w.collection);
        const before = ((await ds.findOneAsync({ _id: id })) ?? null) as Doc | null;
        if (w.kind === "insert" && before) throw new UniqueViolationError(w.collection, `duplicate key ${JSON.stringify(id)}`);
        if (w.kind === "replace" && w.expectedVersion !== undefined && (before?._v ?? -1) !== w.expectedVersion) {
          throw new VersionConflictError(w.collection, id);
        }
        befores.push({ collection: w.collection, id, doc: before });
        afters.push({ collection: w.collection, id, doc: w.kind === "delete" ? null : { ...withoutUndefined(w.doc), _v: nextVersion(w, before) } });
      }
      const journal = await this.datastore(JOURNAL);
      const entryId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
      await journal.insertAsync({ _id: entryId, afters, befores } as unknown as Record<string, unknown>);
      try {
        await this.applyImages(afters, befores);
      } catch (err) {
        await this.applyImages([...befores].reverse());
        await journal.removeAsync({ _id: entryId }, {});
        throw err;
      }
      await journal.removeAsync({ _id: entryId }, {});
    });
  }

  /**
   * Writes the images in order. With the befores of a live commit, a run of new documents of one
   * collection goes in as one nedb insert: one append to the file instead of one per document, which is
   * what makes a commit of hundreds of documents cheap (nedb inserts an array all or nothing). Recovery
   * passes no befores: it may find some images applied already, which only upserts tolerate.
   */
  private async applyImages(images: Image[], befores?: Image[]): Promise<void> {
    for (let i = 0; i < images.length; ) {
      const image = images[i] as Image;
      const ds = await this.datastore(image.collection);
      const isNew = (k: number) => befores !== undefined && befores[k]?.doc === null && images[k]?.doc !== null && images[k]?.collection === image.collection;
      // A document written twice in one commit ends the run: the second write must see the first.
      const ids = new Set<string>();
      let end = i;
      while (end < images.length && isNew(end) && !ids.has((images[end] as Image).id)) ids.add((images[end++] as Image).id);
      try {
        if (end > i) {
          await ds.insertAsync(images.slice(i, end).map((im) => im.doc) as unknown as Array<Record<string, unknown>>);
          i = end;
          continue;
        }
        if (image.doc === null) await ds.removeAsync({ _id: image.id }, { multi: false });
        else await ds.updateAsync({ _id: image.id }, image.doc as unknown as Record<string, unknown>, { upsert: true });
        i += 1;
      } catch (err) {
        throw toStoreError(image.collection, err);
      }
    }
  }

  /** Finishes commits that a previous process decided but may not have applied. */
  async recover(): Promise<number> {
    const journal = await this.datastore(JOURNAL);
    const entries = (await journal.findAsync({}).sort({ _id: 1 })) as unknown as JournalEntry[];
    for (const entry of entries) {
      try {
        await this.applyImages(entry.afters);
      } catch {
        await this.applyImages([...entry.befores].reverse());
      }
      await journal.removeAsync({ _id: entry._id }, {});
    }
    return entries.length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.commitLock.run(async () => undefined);
    const all = await Promise.all(this.datastores.values());
    this.closed = true;
    for (const ds of all) {
      ds.stopAutocompaction();
      // Compaction rewrites the file from memory: the next start loads it without replaying appends.
      if (this.dir) await ds.compactDatafileAsync();
    }
  }
}

const nextVersion = (w: Write, before: Doc | null): number => {
  if (w.kind === "insert") return w.doc._v ?? 1;
  if (w.kind === "replace" && w.expectedVersion !== undefined) return w.expectedVersion + 1;
  return (before?._v ?? 0) + 1;
};

// nedb appends one JSON line per write. A process killed mid-append leaves a torn last line (no newline):
// that write never completed, so it is dropped. Any other corrupt line still stops the load (threshold 0),
// because silently skipping data is worse than refusing to start.
const repairTornTail = async (file: string): Promise<void> => {
  const content = await readFile(file, "utf8").catch(() => null);
  if (!content || content.endsWith("\n")) return;
  const keep = content.slice(0, content.lastIndexOf("\n") + 1);
  await writeFile(file, keep);
};

/** Opens a data directory of the nedb store (before SQLite), finishing any journaled commit a crashed process left behind. */
export const openNedbStore = async (options: NedbStoreOptions = {}): Promise<DocumentStore> => {
  if (options.dir) {
    await mkdir(options.dir, { recursive: true });
  }
  const store = new EmbeddedStore(options.dir);
  await store.recover();
  return store;
};
