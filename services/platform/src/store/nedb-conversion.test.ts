import { readdir } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import { makeTempDir } from "../testing/tmp";
import { openEmbeddedStore, SqliteStore, STORE_FILE } from "./embedded";
import { convertNedbDataDir } from "./nedb-conversion";
import { openNedbStore } from "./nedb-store";
import type { Doc } from "./port";

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
});

/** A data directory as the nedb store left it: mentions, projects, a pending outbox record. */
const writeNedbDir = async (dir: string): Promise<void> => {
  const old = await openNedbStore({ dir });
  await old.collection<Mention>("mentions").ensureIndex({ fields: { projectId: 1, at: -1 } });
  await old.collection<Mention>("mentions").insertMany(Array.from({ length: 120 }, (_, i) => mention(i)));
  await old.collection("mentions").updateOne({ _id: "men_007" }, { $set: { text: "edited" } });
  await old.commit([
    { kind: "insert", collection: "projects", doc: { _id: "prj_a", name: "Acme" } as Doc },
    { kind: "insert", collection: "outbox", doc: { _id: "evt_1", topic: "t" } as Doc },
  ]);
  await old.close();
};

const everything = async (store: Awaited<ReturnType<typeof openEmbeddedStore>>) => ({
  mentions: await store.collection<Mention>("mentions").find({}, { sort: { _id: 1 } }),
  page: await store.collection<Mention>("mentions").findPage({ projectId: "prj_a" }, { limit: 5, sortField: "at", direction: -1 }),
  projects: await store.collection("projects").find({}),
  outbox: await store.collection("outbox").find({}),
});

describe("converting a data directory of the nedb store", () => {
  it("reads the same after conversion, keeps a copy of the old files beside it and removes them from the directory", async () => {
    const tmp = await makeTempDir();
    const dir = join(tmp.dir, "mention");
    try {
      await writeNedbDir(dir);
      // Read as the old store reads it, then closed: an nedb store left open keeps compacting into the
      // directory after the test removed it.
      const old = await openNedbStore({ dir });
      const before = await everything(old);
      await old.close();
      const store = await openEmbeddedStore({ dir });
      await store.collection<Mention>("mentions").ensureIndex({ fields: { projectId: 1, at: -1 } });
      const after = await everything(store);
      expect(after).toEqual(before);
      expect(after.mentions).toHaveLength(120);
      expect(after.mentions[7]).toMatchObject({ text: "edited", _v: 2 });
      expect(after.mentions[0]?.at).toBeInstanceOf(Date);
      await store.close();
      expect((await readdir(dir)).filter((f) => f.endsWith(".db"))).toEqual([]);
      expect(await readdir(`${dir}.nedb`)).toEqual(expect.arrayContaining(["mentions.db", "projects.db", "outbox.db"]));
      // A second start finds nothing to convert and the same data.
      const again = await openEmbeddedStore({ dir });
      expect(await again.collection("mentions").count({})).toBe(120);
      await again.close();
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
});
