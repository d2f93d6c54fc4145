import { fsync } from "node:fs";
import { open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir } from "../testing/tmp";
import { describeStoreContract } from "./contract";
import { openEmbeddedStore } from "./embedded";

describeStoreContract("embedded (SQLite)", async () => {
  const tmp = await makeTempDir();
  return {
    store: await openEmbeddedStore({ dir: tmp.dir }),
    reopen: () => openEmbeddedStore({ dir: tmp.dir }),
    cleanup: tmp.cleanup,
  };
});

describe("embedded store specifics", () => {
  it("fsyncs the log once for the commits made together, and resolves each write and read only after it", async () => {
    const tmp = await makeTempDir();
    const probe = await open(join(tmp.dir, "probe"), "w");
    const sync = jest.spyOn(Object.getPrototypeOf(probe) as { sync: () => Promise<void> }, "sync");
    await probe.close();
    const order: string[] = [];
    sync.mockImplementation(async function (this: { fd: number }) {
      order.push("fsync");
      await new Promise<void>((resolve, reject) => fsync(this.fd, (err) => (err ? reject(err) : resolve())));
    });
    try {
      const store = await openEmbeddedStore({ dir: tmp.dir });
      const c = store.collection<{ _id: string; n: number }>("things");
      await c.insertOne({ _id: "first", n: 0 });
      sync.mockClear();
      order.length = 0;
      const writes = Array.from({ length: 40 }, (_, n) => c.insertOne({ _id: `t${n}`, n }).then(() => order.push("write")));
      const commit = store.commit([{ kind: "insert", collection: "things", doc: { _id: "unit", n: 99 } as { _id: string } }]).then(() => order.push("commit"));
      // A read of what is not yet on disk waits for the fsync that puts it there.
      const read = c.findById("t3").then((d) => order.push(`read ${d?.n}`));
      await Promise.all([...writes, commit, read]);
      expect(sync.mock.calls.length).toBeLessThanOrEqual(2);
      expect(order[0]).toBe("fsync");
      expect(order).toContain("read 3");
      await store.close();
      const again = await openEmbeddedStore({ dir: tmp.dir });
      expect(await again.collection("things").count({})).toBe(42);
      await again.close();
    } finally {
      sync.mockRestore();
      await tmp.cleanup();
    }
  });

  it("needs no fsync of its own in memory or with sync normal", async () => {
    const tmp = await makeTempDir();
    const probe = await open(join(tmp.dir, "probe"), "w");
    const sync = jest.spyOn(Object.getPrototypeOf(probe) as { sync: () => Promise<void> }, "sync");
    await probe.close();
    try {
      for (const store of [await openEmbeddedStore(), await openEmbeddedStore({ dir: tmp.dir, sync: "normal" })]) {
        await store.collection("things").insertOne({ _id: "a" });
        await store.close();
      }
      expect(sync).not.toHaveBeenCalled();
    } finally {
      sync.mockRestore();
      await tmp.cleanup();
    }
  });

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
});
