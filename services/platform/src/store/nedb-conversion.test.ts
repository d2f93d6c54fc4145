import { cp, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Datastore from "@seald-io/nedb";
import Database from "better-sqlite3";
import { makeTempDir } from "../testing/tmp";
import { openEmbeddedStore, SqliteStore, STORE_FILE } from "./embedded";
import { convertNedbDataDir } from "./nedb-conversion";
import type { Doc } from "./port";

// The files these tests convert are written by nedb itself (@seald-io/nedb, the store's engine before
// SQLite), and what nedb reads back from them is what the converted store must hold.

interface Mention extends Doc {
  projectId: string;
  text: string;
  at: Date;
  tags: string[];
  author: { id: string };
}

const mention = (i: number): Mention => ({
  _id: `men_${String(i).padStart(3, "0")}`,
  projectId: i % 2 ? "prj_a" : "prj_b",
  text: `post ${i}`,
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
  tags: i % 3 ? ["x"] : [],
  author: { id: `usr_${i}` },
  _v: 1,
});

type Raw = Record<string, unknown>;

const openNedb = async (dir: string, name: string): Promise<Datastore<Raw>> => {
  const ds = new Datastore<Raw>({ filename: join(dir, `${name}.db`) });
  await ds.loadDatabaseAsync();
  return ds;
};

/**
 * A data directory as the nedb store left it: mentions (an index, then updates and a removal appended to
 * the file), projects, an outbox record, the store's index records and its emptied journal. Returns what
 * nedb holds of each collection.
 */
const writeNedbDir = async (dir: string) => {
  await mkdir(dir, { recursive: true });
  const mentions = await openNedb(dir, "mentions");
  await mentions.ensureIndexAsync({ fieldName: ["projectId", "at"] });
  await mentions.insertAsync(Array.from({ length: 121 }, (_, i) => mention(i)) as unknown as Raw[]);
  await mentions.updateAsync({ _id: "men_007" }, { $set: { text: "edited" }, $inc: { _v: 1 } }, {});
  await mentions.removeAsync({ _id: "men_120" }, {});
  const projects = await openNedb(dir, "projects");
  await projects.insertAsync({ _id: "prj_a", name: "Acme", _v: 1 });
  const outbox = await openNedb(dir, "outbox");
  await outbox.insertAsync({ _id: "evt_1", topic: "t", _v: 1 });
  const indexes = await openNedb(dir, "_indexes");
  await indexes.insertAsync({ _id: "mentions|at,projectId", unique: false, sparse: false });
  const journal = await openNedb(dir, "_journal");
  await journal.insertAsync({ _id: "j1", afters: [], befores: [] });
  await journal.removeAsync({ _id: "j1" }, {});
  return {
    mentions: await mentions.findAsync({}).sort({ _id: 1 }),
    page: await mentions.findAsync({ projectId: "prj_a" }).sort({ at: -1 }).limit(5),
    projects: await projects.findAsync({}),
    outbox: await outbox.findAsync({}),
  };
};

const line = (doc: unknown): string => `${JSON.stringify(doc)}\n`;

describe("converting a data directory of the nedb store", () => {
  it("reads what nedb reads, keeps a copy of the old files beside it and removes them from the directory", async () => {
    const tmp = await makeTempDir();
    const dir = join(tmp.dir, "mention");
    try {
      const before = await writeNedbDir(dir);
      const store = await openEmbeddedStore({ dir });
      await store.collection<Mention>("mentions").ensureIndex({ fields: { projectId: 1, at: -1 } });
      const mentions = await store.collection<Mention>("mentions").find({}, { sort: { _id: 1 } });
      expect(mentions).toEqual(before.mentions);
      expect(mentions).toHaveLength(120);
      expect(mentions[7]).toMatchObject({ text: "edited", _v: 2 });
      expect(mentions[0]?.at).toBeInstanceOf(Date);
      const page = await store.collection<Mention>("mentions").findPage({ projectId: "prj_a" }, { limit: 5, sortField: "at", direction: -1 });
      expect(page.items).toEqual(before.page);
      expect(await store.collection("projects").find({})).toEqual(before.projects);
      expect(await store.collection("outbox").find({})).toEqual(before.outbox);
      await store.close();
      expect((await readdir(dir)).filter((f) => f.endsWith(".db"))).toEqual([]);
      expect(await readdir(`${dir}.nedb`)).toEqual(expect.arrayContaining(["mentions.db", "projects.db", "outbox.db", "_journal.db", "_indexes.db"]));
      // A second start finds nothing to convert and the same data.
      const again = await openEmbeddedStore({ dir });
      expect(await again.collection("mentions").count({})).toBe(120);
      expect(await again.collection("_indexes").count({})).toBe(0);
      await again.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it("stores each collection as nedb's find({}) gave it: every kind of value, in id order", async () => {
    const tmp = await makeTempDir();
    const dir = join(tmp.dir, "things");
    try {
      await mkdir(dir, { recursive: true });
      const things = await openNedb(dir, "things");
      await things.ensureIndexAsync({ fieldName: "kind" });
      await things.insertAsync({ _id: "thg_b", kind: "a", at: new Date(0), nested: { at: [new Date(1), new Date(2)], n: null }, list: [1, "two", true] });
      await things.insertAsync({ _id: "thg_a", kind: "b", text: "ünïcødé \u2603", n: -1.5, empty: {}, none: [] });
      await things.insertAsync({ _id: "thg_10", kind: "c" });
      await things.insertAsync({ _id: "thg_c", kind: "d" });
      await things.updateAsync({ _id: "thg_a" }, { $unset: { n: true }, $push: { none: { at: new Date(3) } } }, {});
      await things.removeIndexAsync("kind");
      await things.removeAsync({ _id: "thg_c" }, {});
      await things.insertAsync({ _id: "thg_c", kind: "again" });
      await things.updateAsync({ _id: "thg_10" }, { _id: "thg_10", replaced: true }, {});
      // What nedb reads from the file, loaded afresh from a copy (loading compacts the file it reads).
      await cp(join(dir, "things.db"), join(tmp.dir, "copy.db"));
      const oracle = new Datastore<Raw>({ filename: join(tmp.dir, "copy.db") });
      await oracle.loadDatabaseAsync();
      const expected = await oracle.findAsync({});
      expect(expected.map((d) => d._id)).toEqual(["thg_10", "thg_a", "thg_b", "thg_c"]);
      const store = await openEmbeddedStore({ dir });
      // Unsorted: the rows in the order they were converted.
      expect(await store.collection("things").find({})).toEqual(expected);
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it("resumes an interrupted conversion with the collections it had not finished", async () => {
    const tmp = await makeTempDir();
    const dir = join(tmp.dir, "mention");
    try {
      await writeNedbDir(dir);
      const first = new SqliteStore(new Database(join(dir, STORE_FILE)), undefined);
      await expect(
        convertNedbDataDir(dir, first, {
          afterCollection: (name) => {
            if (name === "mentions") throw new Error("interrupted");
          },
        }),
      ).rejects.toThrow("interrupted");
      await first.close();
      const second = new SqliteStore(new Database(join(dir, STORE_FILE)), undefined);
      expect(await convertNedbDataDir(dir, second)).toEqual(["outbox", "projects"]);
      expect(await second.collection("mentions").count({})).toBe(120);
      expect(await second.collection("projects").count({})).toBe(1);
      await second.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it("finishes a commit that a crashed nedb store decided but did not apply", async () => {
    const tmp = await makeTempDir();
    const dir = join(tmp.dir, "items");
    try {
      await mkdir(dir);
      // What a process leaves behind when it dies after writing the journal entry, before applying it.
      const entry = {
        _id: "j1",
        afters: [
          { collection: "items", id: "itm_1", doc: { _id: "itm_1", name: "after", at: { $$date: 5 }, _v: 2 } },
          { collection: "outbox", id: "evt_1", doc: { _id: "evt_1", topic: "t", _v: 1 } },
          { collection: "items", id: "itm_2", doc: null },
        ],
        befores: [
          { collection: "items", id: "itm_1", doc: { _id: "itm_1", name: "before", _v: 1 } },
          { collection: "outbox", id: "evt_1", doc: null },
          { collection: "items", id: "itm_2", doc: { _id: "itm_2", _v: 1 } },
        ],
      };
      await writeFile(join(dir, "items.db"), line({ _id: "itm_1", name: "before", _v: 1 }) + line({ _id: "itm_2", _v: 1 }));
      await writeFile(join(dir, "outbox.db"), "");
      await writeFile(join(dir, "_journal.db"), line(entry));
      const store = new SqliteStore(new Database(":memory:"), undefined);
      expect(await convertNedbDataDir(dir, store)).toEqual(["items", "outbox"]);
      expect(await store.collection("items").find({})).toEqual([{ _id: "itm_1", name: "after", at: new Date(5), _v: 2 }]);
      expect(await store.collection("outbox").find({})).toEqual([{ _id: "evt_1", topic: "t", _v: 1 }]);
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it("undoes a journaled commit that a unique index of the nedb files refuses, as the nedb store did", async () => {
    const tmp = await makeTempDir();
    const dir = join(tmp.dir, "users");
    try {
      await mkdir(dir);
      const users = [
        line({ $$indexCreated: { fieldName: "email", unique: true, sparse: false } }),
        line({ _id: "usr_1", email: "a@x", _v: 1 }),
        line({ _id: "usr_2", email: "b@x", _v: 1 }),
      ];
      // The second after-image takes usr_1's email: the unit is undone, the first after-image with it.
      const entry = {
        _id: "j1",
        afters: [
          { collection: "users", id: "usr_3", doc: { _id: "usr_3", email: "c@x", _v: 1 } },
          { collection: "users", id: "usr_2", doc: { _id: "usr_2", email: "a@x", _v: 2 } },
        ],
        befores: [
          { collection: "users", id: "usr_3", doc: null },
          { collection: "users", id: "usr_2", doc: { _id: "usr_2", email: "b@x", _v: 1 } },
        ],
      };
      // A later entry that the index lets through is applied.
      const later = {
        _id: "j2",
        afters: [{ collection: "users", id: "usr_1", doc: { _id: "usr_1", email: "d@x", _v: 2 } }],
        befores: [{ collection: "users", id: "usr_1", doc: { _id: "usr_1", email: "a@x", _v: 1 } }],
      };
      await writeFile(join(dir, "users.db"), users.join(""));
      await writeFile(join(dir, "_journal.db"), line(later) + line(entry));
      const store = new SqliteStore(new Database(":memory:"), undefined);
      await convertNedbDataDir(dir, store);
      expect(await store.collection("users").find({}, { sort: { _id: 1 } })).toEqual([
        { _id: "usr_1", email: "d@x", _v: 2 },
        { _id: "usr_2", email: "b@x", _v: 1 },
      ]);
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it("drops a last line cut off by a crash, and refuses a file with any other line that does not parse", async () => {
    const tmp = await makeTempDir();
    try {
      const torn = join(tmp.dir, "torn");
      await mkdir(torn);
      await writeFile(join(torn, "items.db"), `${line({ _id: "itm_1", _v: 1 })}{"_id":"itm_2","na`);
      const store = new SqliteStore(new Database(":memory:"), undefined);
      await convertNedbDataDir(torn, store);
      expect(await store.collection("items").find({})).toEqual([{ _id: "itm_1", _v: 1 }]);
      const corrupt = join(tmp.dir, "corrupt");
      await mkdir(corrupt);
      await writeFile(join(corrupt, "items.db"), `{"_id":"itm_0",\n${line({ _id: "itm_1", _v: 1 })}`);
      const other = new SqliteStore(new Database(":memory:"), undefined);
      await expect(convertNedbDataDir(corrupt, other)).rejects.toThrow(/corrupt/);
      await other.close();
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });
});
