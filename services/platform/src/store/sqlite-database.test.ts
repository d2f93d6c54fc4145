import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir } from "../testing/tmp";
import { WalSync } from "./sqlite-database";

// The group commit: every write waiting when a flush starts shares it; a write made while one runs waits
// for the next, which starts after it (a flush begun before a write does not cover it).

describe("WalSync", () => {
  it("shares one flush among the writes made before it starts, and flushes again for those made during it", async () => {
    const tmp = await makeTempDir();
    try {
      const file = join(tmp.dir, "store.sqlite-wal");
      await writeFile(file, "x");
      const wal = new WalSync(file);
      const first = [wal.sync(), wal.sync(), wal.sync()];
      expect(new Set(first).size).toBe(1);
      await Promise.resolve();
      await Promise.resolve();
      // The first flush has started: a write now needs the next one.
      const later = wal.sync();
      expect(later).not.toBe(first[0]);
      const order: string[] = [];
      await Promise.all([first[0]?.then(() => order.push("first")), later.then(() => order.push("later"))]);
      expect(order).toEqual(["first", "later"]);
      await wal.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it("fails the writes waiting on a flush that cannot happen", async () => {
    const wal = new WalSync("/nonexistent-dir/store.sqlite-wal");
    await expect(wal.sync()).rejects.toThrow(/ENOENT/);
  });
});
