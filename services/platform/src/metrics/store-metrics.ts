import { Counter, type Registry } from "prom-client";
import type { Collection, Doc, DocumentStore } from "../store/port";

// How many documents each store writes, by collection: what a change to a write path (fewer writes per
// delivery, per mention) is measured by, from outside the process (`earshot_store_document_writes_total`
// on the metrics port). Counted at the store port, so the embedded store and MongoDB count alike: each
// document a commit inserts, replaces or deletes, and each document a single write changes.

export interface StoreMetrics {
  wrote(store: string, collection: string, documents: number): void;
}

export const createStoreMetrics = (registry: Registry): StoreMetrics => {
  const writes = new Counter({
    name: "earshot_store_document_writes_total",
    help: "Documents written (inserted, replaced, updated or deleted) by each store, by collection.",
    labelNames: ["store", "collection"],
    registers: [registry],
  });
  return { wrote: (store, collection, documents) => documents > 0 && writes.inc({ store, collection }, documents) };
};

const countedCollection = <T extends Doc>(inner: Collection<T>, count: (n: number) => void): Collection<T> => ({
  name: inner.name,
  // Reads and index calls go straight through; each write counts what it changed.
  ensureIndex: (spec) => inner.ensureIndex(spec),
  findOne: (filter) => inner.findOne(filter),
  findById: (id) => inner.findById(id),
  find: (filter, options) => inner.find(filter, options),
  findPage: (filter, options) => inner.findPage(filter, options),
  count: (filter) => inner.count(filter),
  countBy: (filter, spec) => inner.countBy(filter, spec),
  insertOne: async (doc) => {
    const stored = await inner.insertOne(doc);
    count(1);
    return stored;
  },
  insertMany: async (docs) => {
    const stored = await inner.insertMany(docs);
    count(stored.length);
    return stored;
  },
  updateOne: async (filter, update, options) => {
    const result = await inner.updateOne(filter, update, options);
    count(result.modifiedCount + (result.upsertedId ? 1 : 0));
    return result;
  },
  updateMany: async (filter, update) => {
    const result = await inner.updateMany(filter, update);
    count(result.modifiedCount);
    return result;
  },
  findOneAndUpdate: async (filter, update, options) => {
    const result = await inner.findOneAndUpdate(filter, update, options);
    if (result) count(1);
    return result;
  },
  updateVersioned: async (id, expectedVersion, update) => {
    const result = await inner.updateVersioned(id, expectedVersion, update);
    count(1);
    return result;
  },
  deleteOne: async (filter) => {
    const n = await inner.deleteOne(filter);
    count(n);
    return n;
  },
  deleteMany: async (filter) => {
    const n = await inner.deleteMany(filter);
    count(n);
    return n;
  },
});

/** `store` with its writes counted under `name`. */
export const measuredStore = (store: DocumentStore, name: string, metrics: StoreMetrics): DocumentStore => ({
  get kind() {
    return store.kind;
  },
  collection: <T extends Doc>(collection: string) => countedCollection(store.collection<T>(collection), (n) => metrics.wrote(name, collection, n)),
  commit: async (writes) => {
    await store.commit(writes);
    for (const w of writes) metrics.wrote(name, w.collection, 1);
  },
  close: () => store.close(),
});
