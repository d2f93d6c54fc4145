import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir } from "../testing/tmp";
import { describeStoreContract } from "./contract";
import { openEmbeddedStore, type SqliteStore } from "./embedded";

describeStoreContract("embedded (SQLite)", async () => {
  const tmp = await makeTempDir();
  return {
    store: await openEmbeddedStore({ dir: tmp.dir }),
    reopen: () => openEmbeddedStore({ dir: tmp.dir }),
    cleanup: tmp.cleanup,
  };
});

describe("embedded store specifics", () => {
  it("refuses to open a data directory another live process holds", async () => {
    const tmp = await makeTempDir();
    try {
      await writeFile(join(tmp.dir, ".lock"), String(process.ppid));
      await expect(openEmbeddedStore({ dir: tmp.dir })).rejects.toThrow(/in use by process/);
    } finally {
      await tmp.cleanup();
    }
  });

  it("reopens a data directory whose lock holder is gone, and gives the lock up when closed", async () => {
    const tmp = await makeTempDir();
    try {
      await writeFile(join(tmp.dir, ".lock"), "999999999");
      const store = await openEmbeddedStore({ dir: tmp.dir });
      await store.collection("items").insertOne({ _id: "itm_1" });
      await store.close();
      const again = await openEmbeddedStore({ dir: tmp.dir });
      expect(await again.collection("items").findById("itm_1")).not.toBeNull();
      await again.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it("works in memory when no directory is given", async () => {
    const store = await openEmbeddedStore();
    await store.collection("items").insertOne({ _id: "itm_1" });
    expect(await store.collection("items").count({})).toBe(1);
    await store.close();
  });

  it("narrows with an index only while the field has held no array, and still finds by element after", async () => {
    const store = await openEmbeddedStore();
    const items = store.collection<{ _id: string; group: string | string[]; rank: number }>("items");
    await items.ensureIndex({ fields: { group: 1, rank: 1 } });
    await items.insertOne({ _id: "itm_1", group: "p", rank: 2 });
    await items.insertOne({ _id: "itm_2", group: ["p", "q"], rank: 1 });
    expect((await items.find({ group: "p" }, { sort: { rank: 1 } })).map((d) => d._id)).toEqual(["itm_2", "itm_1"]);
    expect((await items.find({ group: "q" })).map((d) => d._id)).toEqual(["itm_2"]);
    await store.close();
  });

  it("keeps no SQL index on a field once it holds an array (no query could use it), and the index stays declared", async () => {
    const store = (await openEmbeddedStore()) as SqliteStore;
    const items = store.collection<{ _id: string; p: string; tags: string | string[]; rank: number }>("items");
    const sqlIndexes = () => (store.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_%'").get() as { n: number }).n;
    await items.ensureIndex({ fields: { p: 1, tags: 1, rank: -1 } });
    await items.ensureIndex({ fields: { p: 1, rank: -1 } });
    await items.insertOne({ _id: "itm_1", p: "a", tags: "x", rank: 1 });
    expect(sqlIndexes()).toBe(2);
    await items.insertOne({ _id: "itm_2", p: "a", tags: ["x", "y"], rank: 2 });
    expect(sqlIndexes()).toBe(1);
    await items.ensureIndex({ fields: { p: 1, tags: 1, rank: -1 } });
    expect(sqlIndexes()).toBe(1);
    expect((await items.find({ p: "a", tags: "x" }, { sort: { rank: -1 } })).map((d) => d._id)).toEqual(["itm_2", "itm_1"]);
    await store.close();
  });
});
