import { join } from "node:path";
import Database from "better-sqlite3";
import { z } from "zod";
import { openSqliteBusLog } from "../bus/sqlite-log";
import { baseConfigShape, loadConfig } from "../config";
import { openServiceStore } from "../runtime";
import { makeTempDir } from "../testing/tmp";
import type { SqliteStore } from "./embedded";
import { configureSqlite, DEFAULT_STORE_CACHE_MB } from "./sqlite-database";

// Each embedded database keeps a bounded number of its pages in memory. better-sqlite3 builds SQLite with a
// 16 MiB page cache per connection, which fills as the database grows: under steady work the all-in-one's
// ten databases made its memory climb for as long as it ran. Every database Earshot opens goes through
// configureSqlite, which sets the cache to EARSHOT_STORE_CACHE_MB (2 MiB unless set).

/** The page cache a connection may fill, in KiB (SQLite reports a size set in KiB as a negative number). */
const cacheKiB = (db: Database.Database): number => -(db.pragma("cache_size", { simple: true }) as number);

describe("the embedded databases' page cache", () => {
  it("is 2 MiB per database unless set, not the 16 MiB better-sqlite3 builds SQLite with", async () => {
    const tmp = await makeTempDir();
    const db = new Database(join(tmp.dir, "store.sqlite"));
    try {
      expect(cacheKiB(db)).toBe(16_000);
      configureSqlite(db, "normal");
      expect(DEFAULT_STORE_CACHE_MB).toBe(2);
      expect(cacheKiB(db)).toBe(2048);
    } finally {
      db.close();
      await tmp.cleanup();
    }
  });

  it("follows EARSHOT_STORE_CACHE_MB in every service store and the bus's log", async () => {
    const tmp = await makeTempDir();
    const config = loadConfig(z.object(baseConfigShape), { EARSHOT_DATA_DIR: tmp.dir, EARSHOT_STORE_SYNC: "normal", EARSHOT_STORE_CACHE_MB: "8" });
    const store = (await openServiceStore(config, "account")) as SqliteStore;
    const log = await openSqliteBusLog({ dir: join(tmp.dir, "bus"), sync: "normal", retainMs: 60_000, cacheMb: config.EARSHOT_STORE_CACHE_MB });
    try {
      expect(cacheKiB(store.db)).toBe(8192);
      // The log keeps its connection to itself; its size is what the pragma reports on it.
      expect(cacheKiB((log as unknown as { db: Database.Database }).db)).toBe(8192);
    } finally {
      await store.close();
      await log.close();
      await tmp.cleanup();
    }
  });

  it.each(["0", "abc", "2048"])("refuses EARSHOT_STORE_CACHE_MB=%s, naming it", (value) => {
    expect(() => loadConfig(z.object(baseConfigShape), { EARSHOT_STORE_CACHE_MB: value })).toThrow(/EARSHOT_STORE_CACHE_MB/);
  });
});
