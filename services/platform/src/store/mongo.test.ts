import { MongoClient } from "mongodb";
import { describeWithServer } from "../testing/containers";
import { describeStoreContract } from "./store-contract-test-support";
import { openMongoStore } from "./mongo";
import { type Doc, type DocumentStore, IndexConflictError, ReplicaSetRequiredError, UniqueViolationError, VersionConflictError } from "./port";

// Runs the store contract against a real MongoDB: MONGO_URL when given (it must be a replica set, for
// transactions), otherwise a throwaway container. Skipped, with the reason printed, when neither exists.
describeWithServer("MongoDB store adapter", process.env.MONGO_URL, () => {
  let url = process.env.MONGO_URL ?? "";
  let stopContainer: (() => Promise<unknown>) | undefined;

  beforeAll(async () => {
    if (url) return;
    // Loaded here so a machine without a container runtime never loads testcontainers for this file.
    const { MongoDBContainer } = await import("@testcontainers/mongodb");
    const container = await new MongoDBContainer("mongo:7.0").start();
    // The container's replica set advertises an address only reachable inside it; a direct connection
    // talks to the mapped port instead of following that address.
    const connection = container.getConnectionString();
    url = `${connection}${connection.includes("?") ? "&" : "?"}directConnection=true`;
    stopContainer = () => container.stop();
  }, 180_000);
  afterAll(async () => {
    await stopContainer?.();
  }, 60_000);

  const freshDb = () => `contract_${Math.random().toString(36).slice(2, 10)}`;

  const dropDatabase = async (database: string) => {
    const client = await MongoClient.connect(url);
    try {
      await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  };

  describeStoreContract("mongodb", async () => {
    const database = freshDb();
    return {
      store: await openMongoStore({ url, database }),
      reopen: () => openMongoStore({ url, database }),
      cleanup: () => dropDatabase(database),
    };
  });

  describe("MongoDB specifics", () => {
    let database: string;
    let store: DocumentStore & { client: MongoClient };

    beforeEach(async () => {
      database = freshDb();
      store = await openMongoStore({ url, database });
    });
    afterEach(async () => {
      await store.close();
      await dropDatabase(database);
    });

    // What the server holds, read past the adapter.
    const stored = (collection: string, id: string) => store.client.db(database).collection<Doc>(collection).findOne({ _id: id });

    it("leaves nothing written when a transaction hits a unique clash, naming the collection", async () => {
      await store.collection("events").insertOne({ _id: "evt_1" });
      const failed = store.commit([
        { kind: "insert", collection: "items", doc: { _id: "itm_1" } },
        { kind: "insert", collection: "events", doc: { _id: "evt_1" } },
      ]);
      await expect(failed).rejects.toBeInstanceOf(UniqueViolationError);
      await expect(failed).rejects.toMatchObject({ collection: "events" });
      expect(await stored("items", "itm_1")).toBeNull();
    });

    it("rolls back the writes before a stale expected version", async () => {
      await store.collection("items").insertOne({ _id: "itm_1" });
      await expect(
        store.commit([
          { kind: "insert", collection: "events", doc: { _id: "evt_1" } },
          { kind: "replace", collection: "items", doc: { _id: "itm_1" }, expectedVersion: 7 },
        ]),
      ).rejects.toBeInstanceOf(VersionConflictError);
      expect(await stored("events", "evt_1")).toBeNull();
      expect(await stored("items", "itm_1")).toMatchObject({ _v: 1 });
    });

    it("moves the version on for a replace without an expected version, starting new documents at 1", async () => {
      await store.commit([{ kind: "replace", collection: "items", doc: { _id: "itm_1" } }]);
      expect(await stored("items", "itm_1")).toMatchObject({ _v: 1 });
      await store.commit([{ kind: "replace", collection: "items", doc: { _id: "itm_1", _v: 1 } }]);
      expect(await stored("items", "itm_1")).toMatchObject({ _v: 2 });
    });

    it("stores _v: 1 on a document inserted by an upsert, through either update call", async () => {
      await store.collection("items").updateOne({ _id: "itm_1" }, { $set: { name: "a" } }, { upsert: true });
      expect(await stored("items", "itm_1")).toEqual({ _id: "itm_1", name: "a", _v: 1 });
      const created = await store.collection("items").findOneAndUpdate({ _id: "itm_2" }, { $push: { tags: "x" } }, { upsert: true });
      expect(created).toEqual({ _id: "itm_2", tags: ["x"], _v: 1 });
    });

    it("maps a unique clash inside insertMany and inside an update, leaving none of the batch written", async () => {
      const items = store.collection<Doc & { name: string }>("items");
      await items.ensureIndex({ fields: { name: 1 }, unique: true });
      await items.insertOne({ _id: "itm_1", name: "a" });
      await expect(
        items.insertMany([
          { _id: "itm_2", name: "b" },
          { _id: "itm_3", name: "a" },
        ]),
      ).rejects.toBeInstanceOf(UniqueViolationError);
      expect(await stored("items", "itm_2")).toBeNull();
      await items.insertOne({ _id: "itm_2", name: "b" });
      await expect(items.updateOne({ _id: "itm_2" }, { $set: { name: "a" } })).rejects.toBeInstanceOf(UniqueViolationError);
    });

    it("leaves out undefined fields, so sparse unique indexes skip them as on the embedded store", async () => {
      const items = store.collection<Doc & { owner?: string }>("items");
      await items.ensureIndex({ fields: { owner: 1 }, unique: true, sparse: true });
      await items.insertOne({ _id: "itm_1", owner: undefined });
      await items.insertOne({ _id: "itm_2", owner: undefined });
      expect(await stored("items", "itm_1")).toEqual({ _id: "itm_1", _v: 1 });
    });

    it("changes an index's expiry on the server with collMod, not a second index", async () => {
      const items = store.collection<Doc & { at: Date }>("items");
      await items.ensureIndex({ fields: { at: 1 }, expireAfterSeconds: 3600 });
      await items.ensureIndex({ fields: { at: 1 }, expireAfterSeconds: 60 });
      const indexes = await store.client.db(database).collection("items").indexes();
      expect(indexes.filter((i) => i.key.at === 1)).toEqual([expect.objectContaining({ expireAfterSeconds: 60 })]);
    });

    it("reports an index created elsewhere with other options as IndexConflictError with its options", async () => {
      await store.client.db(database).collection("items").createIndex({ name: 1 }, { unique: true, sparse: true });
      const conflict = store.collection("items").ensureIndex({ fields: { name: 1 }, unique: true });
      await expect(conflict).rejects.toBeInstanceOf(IndexConflictError);
      await expect(conflict).rejects.toMatchObject({ existing: { unique: true, sparse: true }, requested: { unique: true, sparse: false } });
    });

    it("leaves a client it was given open when closed", async () => {
      const shared = await openMongoStore({ url, database, client: store.client });
      await shared.close();
      await expect(shared.collection("items").count({})).rejects.toThrow("closed");
      expect(await store.collection("items").count({})).toBe(0);
    });
  });

  // A standalone server of our own needs a container; a given MONGO_URL is a replica set.
  const standaloneCheck = process.env.MONGO_URL ? it.skip : it;
  standaloneCheck("refuses to open a standalone server, saying it must be a replica set", async () => {
    const { GenericContainer } = await import("testcontainers");
    const container = await new GenericContainer("mongo:7.0").withExposedPorts(27017).start();
    try {
      const standalone = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
      const opening = openMongoStore({ url: standalone, database: freshDb() });
      await expect(opening).rejects.toBeInstanceOf(ReplicaSetRequiredError);
      await expect(opening).rejects.toThrow(/must be a replica set/);
    } finally {
      await container.stop();
    }
  }, 180_000);
});
