import { MongoClient } from "mongodb";
import { describeWithServer } from "../testing/containers";
import { describeStoreContract } from "./contract";
import { openMongoStore } from "./mongo";
import { UniqueViolationError } from "./port";

// Runs the store contract against a real MongoDB: MONGO_URL when given (it must be a replica set, for
// transactions), otherwise a throwaway container. Skipped, with the reason printed, when neither exists.
describeWithServer("MongoDB store adapter", process.env.MONGO_URL, () => {
  let url = process.env.MONGO_URL ?? "";
  let stopContainer: (() => Promise<unknown>) | undefined;

  beforeAll(async () => {
    if (url) return;
    const { MongoDBContainer } = await import("@testcontainers/mongodb");
    const container = await new MongoDBContainer("mongo:7.0").start();
    url = `${container.getConnectionString()}?directConnection=true`;
    stopContainer = () => container.stop();
  }, 180_000);
  afterAll(async () => {
    await stopContainer?.();
  }, 60_000);

  const freshDb = () => `contract_${Math.random().toString(36).slice(2, 10)}`;

  describeStoreContract("mongodb", async () => {
    const database = freshDb();
    return {
      store: await openMongoStore({ url, database }),
      reopen: () => openMongoStore({ url, database }),
      cleanup: async () => {
        const client = await MongoClient.connect(url);
        await client.db(database).dropDatabase();
        await client.close();
      },
    };
  });

  it("leaves nothing written when a transaction hits a unique clash", async () => {
    const database = freshDb();
    const store = await openMongoStore({ url, database });
    try {
      await store.collection("events").insertOne({ _id: "evt_1" });
      await expect(
        store.commit([
          { kind: "insert", collection: "items", doc: { _id: "itm_1" } },
          { kind: "insert", collection: "events", doc: { _id: "evt_1" } },
        ]),
      ).rejects.toBeInstanceOf(UniqueViolationError);
      expect(await store.collection("items").findById("itm_1")).toBeNull();
    } finally {
      await store.client.db(database).dropDatabase();
      await store.close();
    }
  });
});
