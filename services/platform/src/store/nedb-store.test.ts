import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir } from "../testing/tmp";
import { openNedbStore } from "./nedb-store";

describe("nedb store (read for conversion)", () => {
  it("applies a journaled commit that a crashed process decided but did not apply", async () => {
    const tmp = await makeTempDir();
    try {
      // What a process leaves behind when it dies after writing the journal entry, before applying it.
      const entry = {
        _id: "j1",
        afters: [
          { collection: "items", id: "itm_1", doc: { _id: "itm_1", name: "after", _v: 2 } },
          { collection: "outbox", id: "evt_1", doc: { _id: "evt_1", topic: "t", _v: 1 } },
        ],
        befores: [
          { collection: "items", id: "itm_1", doc: { _id: "itm_1", name: "before", _v: 1 } },
          { collection: "outbox", id: "evt_1", doc: null },
        ],
      };
      await writeFile(join(tmp.dir, "items.db"), `${JSON.stringify({ _id: "itm_1", name: "before", _v: 1 })}\n`);
      await writeFile(join(tmp.dir, "_journal.db"), `${JSON.stringify(entry)}\n`);
      const store = await openNedbStore({ dir: tmp.dir });
      expect(await store.collection("items").findById("itm_1")).toMatchObject({ name: "after", _v: 2 });
      expect(await store.collection("outbox").findById("evt_1")).toMatchObject({ topic: "t" });
      expect(await store.collection("_journal").count({})).toBe(0);
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it("loads a file whose last line was cut off by a crash", async () => {
    const tmp = await makeTempDir();
    try {
      const store = await openNedbStore({ dir: tmp.dir });
      await store.collection("items").insertOne({ _id: "itm_1" });
      await store.close();
      await appendFile(join(tmp.dir, "items.db"), '{"_id":"itm_2","na');
      const again = await openNedbStore({ dir: tmp.dir });
      expect(await again.collection("items").findById("itm_1")).not.toBeNull();
      await again.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it("works in memory when no directory is given", async () => {
    const store = await openNedbStore();
    await store.collection("items").insertOne({ _id: "itm_1" });
    expect(await store.collection("items").count({})).toBe(1);
    await store.close();
  });
});
