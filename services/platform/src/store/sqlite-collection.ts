import * as model from "@seald-io/nedb/lib/model.js";
import { notFound } from "../errors";
import { assertFilter, assertPageLimit, findPageWith, withoutUndefined } from "./checks";
import { assertCountSpec } from "./count-by";
import {
  type Collection,
  type CountRow,
  type CountSpec,
  type Doc,
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
} from "./port";
import type { Stored, Table } from "./sqlite-schema";
import { isUniqueError } from "./sqlite-writes";

// A collection of the embedded store, as the port's Collection: each call runs synchronously on the
// store's database, then resolves once what it wrote (or, for a read, what it may have seen) is on disk.

/**
 * What a collection asks of the store: SqliteStore (embedded.ts), which creates its collections. Declared
 * here so that this file does not import the store that imports it.
 */
export interface CollectionStore {
  table(name: string): Table;
  transaction<R>(fn: () => R): R;
  ensureIndex(table: Table, spec: IndexSpec): void;
  insert(table: Table, doc: Stored): void;
  update(table: Table, filter: Filter, update: Update, multi: boolean, upsert: boolean): { matched: Stored[]; upserted?: Stored };
  delete(table: Table, filter: Filter, multi: boolean): number;
  byId(table: Table, id: string): Stored | null;
  find(table: Table, filter: Filter, options: FindOptions): Stored[];
  count(table: Table, filter: Filter): number;
  countBy(table: Table, filter: Filter, spec: CountSpec): CountRow[];
  /** Resolves once every write made so far is on disk (undefined: nothing to wait for). */
  durable(): Promise<void> | undefined;
  /** Resolves once the commits a read may have seen are on disk (undefined: none is waiting). */
  settled(): Promise<void> | undefined;
}

export class SqliteCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly store: CollectionStore,
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
