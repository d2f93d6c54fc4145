import { fdatasync } from "node:fs";
import { open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir } from "../testing/tmp";
import { describeStoreContract } from "./store-contract-test-support";
import { openEmbeddedStore, type SqliteStore } from "./embedded";
import { afterCursorFilter } from "./checks";
import { countDocs } from "./count-by";
import type { CountRow, Filter } from "./port";

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
    const sync = jest.spyOn(Object.getPrototypeOf(probe) as { datasync: () => Promise<void> }, "datasync");
    await probe.close();
    const order: string[] = [];
    sync.mockImplementation(async function (this: { fd: number }) {
      order.push("fsync");
      await new Promise<void>((resolve, reject) => fdatasync(this.fd, (err) => (err ? reject(err) : resolve())));
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
    const sync = jest.spyOn(Object.getPrototypeOf(probe) as { datasync: () => Promise<void> }, "datasync");
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

  describe("query plans (EXPLAIN QUERY PLAN)", () => {
    type Item = { _id: string; p: string; a: string; b: string; tags: string[]; at: Date };
    const seeded = async (n: number) => {
      const store = (await openEmbeddedStore()) as SqliteStore;
      const items = store.collection<Item>("items");
      await items.ensureIndex({ fields: { p: 1, at: -1, _id: -1 } });
      for (const f of ["a", "b", "tags"]) await items.ensureIndex({ fields: { p: 1, [f]: 1, at: -1, _id: -1 } });
      const docs = Array.from({ length: n }, (_, i) => ({
        _id: `itm_${String(i).padStart(5, "0")}`,
        p: "prj_1",
        a: `a${i % 500}`,
        b: `b${i % 400}`,
        tags: [`t${i % 50}`, `t${(i * 7) % 50}`],
        at: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
      }));
      await items.insertMany(docs);
      return { store, items, docs };
    };
    const page = { sort: { at: -1, _id: -1 } as Record<string, 1 | -1>, limit: 26 };

    it("serves an $or of two indexed fields inside one project through both indexes once the collection has statistics", async () => {
      const { store, items, docs } = await seeded(2000);
      store.optimize();
      const filter = { p: "prj_1", $and: [{ $or: [{ a: "a42" }, { b: "b42" }] }] };
      const plan = store.explainFind("items", filter, page).join("\n");
      expect(plan).toMatch(/MULTI-INDEX OR/);
      expect(plan).not.toMatch(/SCAN/);
      const expected = docs.filter((d) => d.a === "a42" || d.b === "b42").sort((x, y) => y.at.getTime() - x.at.getTime()).slice(0, 26).map((d) => d._id);
      expect((await items.find(filter, page)).map((d) => d._id)).toEqual(expected);
      await store.close();
    });

    it("reads a page behind a cursor by walking one index range in order, not by collecting and sorting every older row", async () => {
      const { store, items, docs } = await seeded(2000);
      store.optimize();
      const options = { sortField: "at", direction: -1 as const, limit: 10 };
      const first = await items.findPage({ p: "prj_1" }, options);
      const plan = store.explainFind("items", { $and: [{ p: "prj_1" }, afterCursorFilter(first.nextCursor as string, "at", -1)] }, page).join("\n");
      expect(plan).not.toMatch(/MULTI-INDEX OR|TEMP B-TREE/);
      const expected = [...docs].sort((x, y) => y.at.getTime() - x.at.getTime()).map((d) => d._id);
      expect((await items.findPage({ p: "prj_1" }, { ...options, cursor: first.nextCursor })).items.map((d) => d._id)).toEqual(expected.slice(10, 20));
      await store.close();
    });

    it("walks the side table of an array field's index in page order for an element, without sorting", async () => {
      const { store, items, docs } = await seeded(500);
      const plan = store.explainFind("items", { p: "prj_1", tags: "t7" }, page).join("\n");
      expect(plan).toMatch(/SEARCH m_ USING PRIMARY KEY/);
      expect(plan).not.toMatch(/TEMP B-TREE|SCAN/);
      const expected = docs.filter((d) => d.tags.includes("t7")).sort((x, y) => y.at.getTime() - x.at.getTime()).map((d) => d._id);
      expect((await items.findPage({ p: "prj_1", tags: "t7" }, { sortField: "at", direction: -1, limit: 1000 })).items.map((d) => d._id)).toEqual(expected);
      // Two elements of one document: found once.
      const both = docs.filter((d) => d.tags.includes("t1") || d.tags.includes("t7")).length;
      expect(await items.find({ p: "prj_1", tags: { $in: ["t1", "t7"] } }, page)).toHaveLength(Math.min(26, both));
      expect(new Set((await items.find({ p: "prj_1", tags: { $in: ["t1", "t7"] } }, { sort: page.sort })).map((d) => d._id)).size).toBe(both);
      await store.close();
    });

    it("keeps an array field's side table current through updates, replacements, deletes and commits", async () => {
      const { store, items } = await seeded(100);
      const ids = async (tag: string) => (await items.find({ p: "prj_1", tags: tag }, page)).map((d) => d._id);
      await items.updateOne({ _id: "itm_00001" }, { $set: { tags: ["new"] } });
      expect(await ids("new")).toEqual(["itm_00001"]);
      expect(await ids("t1")).not.toContain("itm_00001");
      await items.deleteOne({ _id: "itm_00001" });
      expect(await ids("new")).toEqual([]);
      const doc: Item = { _id: "itm_x", p: "prj_1", a: "", b: "", tags: ["new", "new"], at: new Date() };
      await store.commit([{ kind: "insert", collection: "items", doc }]);
      expect(await ids("new")).toEqual(["itm_x"]);
      const rows = (store.db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name LIKE 'm_%'").get() as { n: number }).n;
      expect(rows).toBe(1);
      await store.close();
    });

    it("counts a Date range from the index alone while the field has held only Dates, and checks types again once it has not", async () => {
      const { store, items } = await seeded(100);
      const period = { p: "prj_1", at: { $gte: new Date(Date.UTC(2026, 0, 1, 0, 10)), $lt: new Date(Date.UTC(2026, 0, 1, 0, 20)) } };
      expect(store.explainCount("items", period)?.join("\n")).toMatch(/COVERING INDEX/);
      expect(await items.count(period)).toBe(10);
      expect(await items.count({ p: "prj_1", at: { $lt: new Date(Date.UTC(2026, 0, 1, 0, 20)) } })).toBe(20);
      await items.insertOne({ _id: "itm_none", p: "prj_1", a: "", b: "", tags: [] } as unknown as Item);
      expect(await items.count({ p: "prj_1", at: { $lt: new Date(Date.UTC(2026, 0, 1, 0, 20)) } })).toBe(20);
      await items.insertOne({ _id: "itm_number", p: "prj_1", a: "", b: "", tags: [], at: Date.UTC(2026, 0, 1, 0, 15) } as unknown as Item);
      expect(store.explainCount("items", period)?.join("\n")).not.toMatch(/COVERING INDEX/);
      expect(await items.count(period)).toBe(10);
      await store.close();
    });

    it("counts by a field of strings from an index and by an array field from its side table, reading no document, until the field holds a number", async () => {
      const { store, items } = await seeded(200);
      store.optimize();
      const starts = [0, 60, 120].map((m) => new Date(Date.UTC(2026, 0, 1, 0, m)));
      const period = { p: "prj_1", at: { $gte: starts[0] as Date, $lt: new Date(Date.UTC(2026, 0, 1, 3)) } };
      const spec = (by: string) => ({ by, buckets: { field: "at", starts } });
      const byA = store.explainCountBy("items", period, spec("a"))?.join("\n") ?? "";
      expect(byA).toMatch(/COVERING INDEX/);
      expect(byA).not.toMatch(/INTEGER PRIMARY KEY/);
      const byTags = store.explainCountBy("items", period, spec("tags"))?.join("\n") ?? "";
      expect(byTags).toMatch(/COVERING INDEX/);
      expect(byTags).toMatch(/m_/);
      const reference = async (by: string) => countDocs(await items.find(period), spec(by));
      const sorted = (rows: CountRow[]) => [...rows].sort((x, y) => x.bucket - y.bucket || String(x.key).localeCompare(String(y.key)));
      expect(sorted(await items.countBy(period, spec("a")))).toEqual(sorted(await reference("a")));
      expect(sorted(await items.countBy(period, spec("tags")))).toEqual(sorted(await reference("tags")));
      // A number's key would be taken for a Date's or a boolean's: the key is read from the document again.
      await items.insertOne({ _id: "itm_n", p: "prj_1", a: 7, b: "", tags: [1, true], at: new Date(Date.UTC(2026, 0, 1, 0, 30)) } as unknown as Item);
      expect(store.explainCountBy("items", period, spec("a"))?.join("\n")).toMatch(/INTEGER PRIMARY KEY/);
      expect(sorted(await items.countBy(period, spec("a")))).toEqual(sorted(await reference("a")));
      expect(sorted(await items.countBy(period, spec("tags")))).toEqual(sorted(await reference("tags")));
      await store.close();
    });

    it("counts an array field asked for some strings from its side table alone while every other member is on that index's fields", async () => {
      const { store, items } = await seeded(200);
      const period = { p: "prj_1", at: { $gte: new Date(Date.UTC(2026, 0, 1, 0, 10)), $lt: new Date(Date.UTC(2026, 0, 1, 2)) } };
      const plan = (filter: Filter) => store.explainCount("items", filter)?.join("\n") ?? "";
      const found = async (filter: Filter) => (await items.find(filter)).length;
      const one = { ...period, tags: "t7" };
      expect(plan(one)).toMatch(/SEARCH m_ USING PRIMARY KEY/);
      expect(plan(one)).not.toMatch(/c_items/);
      expect(await items.count(one)).toBe(await found(one));
      // A document holding both strings is counted once.
      const both = { ...period, $and: [{ tags: { $in: ["t7", "t49"] } }] };
      expect(plan(both)).toMatch(/SEARCH m_ USING PRIMARY KEY/);
      expect(await items.count(both)).toBe(await found(both));
      expect(await items.count(both)).toBeLessThan((await items.count({ ...period, tags: "t7" })) + (await items.count({ ...period, tags: "t49" })));
      // A member the side table does not hold: the collection's rows are counted, probing the side table.
      const other = { ...one, a: "a7" };
      expect(plan(other)).toMatch(/c_items/);
      expect(await items.count(other)).toBe(await found(other));
      // A range on a field that has held something other than Dates needs the document's type: not from the side table.
      await items.insertOne({ _id: "itm_n", p: "prj_1", a: "a7", b: "", tags: ["t7"], at: Date.UTC(2026, 0, 1, 0, 30) } as unknown as Item);
      expect(plan(one)).not.toMatch(/SEARCH m_ USING PRIMARY KEY/);
      expect(await items.count(one)).toBe(await found(one));
      await store.close();
    });

    it("fills an array field's side table from the documents already stored when the field first holds an array", async () => {
      const store = (await openEmbeddedStore()) as SqliteStore;
      const items = store.collection<{ _id: string; p: string; tags: string | string[]; at: number }>("items");
      await items.ensureIndex({ fields: { p: 1, tags: 1, at: -1 } });
      await items.insertMany([
        { _id: "itm_1", p: "x", tags: "a", at: 1 },
        { _id: "itm_2", p: "x", tags: "b", at: 2 },
      ]);
      expect(store.explainFind("items", { p: "x", tags: "a" }, { sort: { at: -1 } }).join("\n")).not.toMatch(/m_/);
      await items.insertOne({ _id: "itm_3", p: "x", tags: ["a", "b"], at: 3 });
      expect(store.explainFind("items", { p: "x", tags: "a" }, { sort: { at: -1 } }).join("\n")).toMatch(/m_/);
      expect((await items.find({ p: "x", tags: "a" }, { sort: { at: -1 } })).map((d) => d._id)).toEqual(["itm_3", "itm_1"]);
      await store.close();
    });
  });

  describe("text indexes (a full-text table instead of one row per word)", () => {
    type Item = { _id: string; p: string; words: unknown; at: number };
    const ids = (docs: Item[]) => docs.map((d) => d._id);
    const open = async () => {
      const store = (await openEmbeddedStore()) as SqliteStore;
      const items = store.collection<Item>("items");
      await items.ensureIndex({ fields: { p: 1, words: 1, at: -1 }, text: "words" });
      return { store, items };
    };

    it("finds and counts by a word exactly as the equality means, served by the full-text table", async () => {
      const { store, items } = await open();
      await items.insertMany([
        { _id: "itm_1", p: "x", words: ["sync", "fast"], at: 1 },
        { _id: "itm_2", p: "x", words: ["slow"], at: 2 },
        { _id: "itm_3", p: "x", words: "sync", at: 3 },
        { _id: "itm_4", p: "y", words: ["sync"], at: 4 },
        { _id: "itm_5", p: "x", words: ["sync", "fast", "ünï"], at: 5 },
      ]);
      const filter = { p: "x", $and: [{ words: "sync" }, { words: "fast" }] };
      expect(store.explainFind("items", filter, { sort: { at: -1 } }).join("\n")).toMatch(/t_/);
      expect(ids(await items.find(filter, { sort: { at: -1 } }))).toEqual(["itm_5", "itm_1"]);
      expect(await items.count(filter)).toBe(2);
      expect(store.explainCount("items", filter)?.join("\n")).toMatch(/t_/);
      expect(await items.countBy({ p: "x", words: "ünï" }, {})).toEqual([{ bucket: 0, key: null, count: 1 }]);
      // Updates and deletes keep it current.
      await items.updateOne({ _id: "itm_1" }, { $set: { words: ["slow"] } });
      await items.deleteOne({ _id: "itm_5" });
      expect(ids(await items.find({ p: "x", words: "sync" }, { sort: { at: -1 } }))).toEqual(["itm_3"]);
      expect(await items.count({ p: "x", words: "slow" })).toBe(2);
      await store.close();
    });

    it("starts from the full-text table for a word few documents hold, and walks the order testing rows for one many hold", async () => {
      const { store, items } = await open();
      await items.ensureIndex({ fields: { p: 1, at: -1 } });
      // "common" in 2,400 documents, more than a read starts from; "rare" in 630.
      await items.insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: `itm_${String(i).padStart(4, "0")}`, p: "x", words: i % 5 === 0 ? ["rare"] : i % 100 === 1 ? ["common", "rare"] : ["common"], at: i })));
      const sort = { at: -1 } as Record<string, 1 | -1>;
      const first = (plan: string[]) => plan[0] ?? "";
      expect(first(store.explainFind("items", { p: "x", words: "common" }, { sort, limit: 26 }))).toMatch(/c_items/);
      expect(first(store.explainFind("items", { p: "x", words: "rare" }, { sort, limit: 26 }))).toMatch(/t_/);
      expect(ids(await items.find({ p: "x", words: "common" }, { sort, limit: 3 }))).toEqual(["itm_2999", "itm_2998", "itm_2997"]);
      // A page tests the common word on each row it walks; it never builds the word's postings list, whose
      // size would make every page's cost grow with the collection. An unbounded read builds it once.
      expect(store.explainFind("items", { p: "x", words: "common" }, { sort, limit: 26 }).join("\n")).not.toMatch(/t_/);
      expect(store.explainFind("items", { p: "x", words: "common" }, { sort }).join("\n")).toMatch(/t_/);
      expect(ids(await items.find({ p: "x", $and: [{ words: "common" }, { words: "rare" }] }, { sort, limit: 2 }))).toEqual(["itm_2901", "itm_2801"]);
      expect(ids(await items.find({ p: "x", words: "common" }, { sort })).length).toBe(2400);
      expect(await items.count({ p: "x", words: "common" })).toBe(2400);
      expect(await items.count({ p: "x", $and: [{ words: "common" }, { words: "rare" }] })).toBe(30);
      await store.close();
    });

    it("stays exact for words the tokenizer would split or fold: such a query or document is tested row by row", async () => {
      const { store, items } = await open();
      await items.insertMany([
        { _id: "itm_1", p: "x", words: ["foo"], at: 1 },
        { _id: "itm_2", p: "x", words: ["Foo"], at: 2 },
        { _id: "itm_3", p: "x", words: ["foo-bar"], at: 3 },
        { _id: "itm_4", p: "x", words: [7, "bar"], at: 4 },
      ]);
      for (const [word, expected] of [["foo", ["itm_1"]], ["Foo", ["itm_2"]], ["foo-bar", ["itm_3"]], ["bar", ["itm_4"]], [7, ["itm_4"]]] as const) {
        expect(ids(await items.find({ p: "x", words: word }, { sort: { at: 1 } }))).toEqual(expected);
        expect(await items.count({ p: "x", words: word })).toBe(expected.length);
      }
      await store.close();
    });

    it("keeps the full-text table across a reopen and declares it on an index ensured before without text", async () => {
      const tmp = await makeTempDir();
      try {
        let store = (await openEmbeddedStore({ dir: tmp.dir })) as SqliteStore;
        let items = store.collection<Item>("items");
        await items.ensureIndex({ fields: { p: 1, words: 1, at: -1 } });
        await items.insertOne({ _id: "itm_1", p: "x", words: ["sync"], at: 1 });
        expect(store.explainFind("items", { p: "x", words: "sync" }).join("\n")).not.toMatch(/t_/);
        await items.ensureIndex({ fields: { p: 1, words: 1, at: -1 }, text: "words" });
        await store.close();
        store = (await openEmbeddedStore({ dir: tmp.dir })) as SqliteStore;
        items = store.collection<Item>("items");
        expect(store.explainFind("items", { p: "x", words: "sync" }).join("\n")).toMatch(/t_/);
        expect(ids(await items.find({ p: "x", words: "sync" }))).toEqual(["itm_1"]);
        expect(await items.count({ p: "x", words: "sync" })).toBe(1);
        await store.close();
      } finally {
        await tmp.cleanup();
      }
    });

    it("refuses a text field that is not one of the index's fields", async () => {
      const store = await openEmbeddedStore();
      await expect(store.collection("items").ensureIndex({ fields: { p: 1 }, text: "words" })).rejects.toThrow(/text index/);
      await store.close();
    });
  });
});
