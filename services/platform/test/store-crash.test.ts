import { spawn } from "node:child_process";
import { join } from "node:path";
import { openEmbeddedStore } from "../src/store/embedded";
import { isUniqueViolation } from "../src/store/port";
import { runUntilKilled } from "./kill-after-acks";
import { makeTempDir } from "../src/testing/tmp";

// Kills a real process with SIGKILL while it streams acknowledged writes to the embedded store, then
// checks what a restart finds: every acknowledged unit of work whole, none half, and idempotent retries of
// the writes the client could not know about add nothing twice.

describe("embedded store across kill -9", () => {
  it("keeps every acknowledged unit of work whole, and idempotent retries add nothing twice", async () => {
    const tmp = await makeTempDir();
    try {
      const lastAcked = await runUntilKilled("store-crash-child", tmp.dir, 300);
      expect(lastAcked).toBeGreaterThanOrEqual(299);
      const store = await openEmbeddedStore({ dir: tmp.dir });
      const items = store.collection<{ _id: string; n: number }>("items");
      const outbox = store.collection("outbox");
      const stored = await items.count({});
      expect(stored).toBeGreaterThanOrEqual(lastAcked + 1);
      for (let n = 0; n <= lastAcked; n += 1) expect(await items.findById(`itm_${n}`)).toMatchObject({ n });
      // Units are whole: an item exists exactly when its event does, and progress names the last of them.
      expect(await outbox.count({})).toBe(stored);
      expect((await store.collection<{ _id: string; n: number }>("progress").findById("p"))?.n).toBe(stored - 1);
      // The client retries what it sent but saw no answer for (and a little more): inserts by id are idempotent.
      for (let n = 0; n <= lastAcked + 5; n += 1) {
        await store
          .commit([
            { kind: "insert", collection: "items", doc: { _id: `itm_${n}`, n } },
            { kind: "insert", collection: "outbox", doc: { _id: `evt_${n}`, item: `itm_${n}` } },
          ])
          .catch((e: unknown) => {
            if (!isUniqueViolation(e)) throw e;
          });
      }
      expect(await items.count({})).toBe(Math.max(stored, lastAcked + 6));
      expect(await outbox.count({})).toBe(await items.count({}));
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  }, 60_000);

  it("refuses a second process on a data directory a live process holds", async () => {
    const tmp = await makeTempDir();
    const child = spawn(process.execPath, [join(__dirname, "ts-child.js"), join(__dirname, "fixtures/store-crash-child.ts"), tmp.dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      await expect(openEmbeddedStore({ dir: tmp.dir })).rejects.toThrow(/in use by process/);
    } finally {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
      await tmp.cleanup();
    }
  }, 60_000);
});
