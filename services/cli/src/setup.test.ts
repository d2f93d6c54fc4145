import { join } from "node:path";
import Database from "better-sqlite3";
import { STORE_FILE, storeNameOf } from "@earshot/platform";
import { hostServiceForTest, sharedTestStores } from "@earshot/platform/testing";
import { serviceModules } from "@earshot/registry";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { runCli } from "./commands";
import type { Env } from "./config";

// `earshot setup` on the embedded default (SQLite): it creates, without starting anything, the very indexes
// each service creates when it starts, and a second run changes nothing. The Kafka half is tested against
// a real broker in services/platform/src/bus/kafka-topics.test.ts.

const run = async (env: Env, ...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
};

/** The indexes of a service's SQLite store, by name and definition. */
const indexesOf = (dataDir: string, service: string): string[] => {
  const db = new Database(join(dataDir, service, STORE_FILE), { readonly: true });
  try {
    return (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as Array<{ name: string; sql: string }>).map((r) => `${r.name}: ${r.sql}`);
  } finally {
    db.close();
  }
};

describe("earshot setup", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await makeTempDir("earshot-setup-");
  });
  afterEach(() => tmp.cleanup());

  it("creates every service's indexes and the edge's in the embedded store, and says no topic is needed without Kafka", async () => {
    const res = await run({ EARSHOT_DATA_DIR: tmp.dir }, "setup");
    expect(res).toMatchObject({ code: 0, err: "" });
    for (const m of serviceModules()) {
      expect(res.out).toContain(`Indexes of ${m.name}${storeNameOf(m) === m.name ? "" : ` (store ${storeNameOf(m)})`}: ready (embedded).`);
    }
    expect(res.out).toContain("Indexes of edge (gateway, mcp-gateway): ready (embedded).");
    expect(res.out).toContain("No KAFKA_BROKERS");
    expect(indexesOf(tmp.dir, "edge").length).toBeGreaterThan(0);
  });

  // A store several deployables share (webhook's API and delivery worker) gets what all of them create.
  const stores = [...new Set(serviceModules().map(storeNameOf))];
  it.each(stores)("creates exactly the indexes the deployables of %s create when they start", async (store) => {
    expect((await run({ EARSHOT_DATA_DIR: tmp.dir }, "setup")).code).toBe(0);
    const shared = await sharedTestStores();
    const hosted = [];
    try {
      for (const module of serviceModules().filter((m) => storeNameOf(m) === store)) hosted.push(await hostServiceForTest(module, { shared }));
      // The hosted store is open: read it through a second (read-only) connection.
      expect(indexesOf(tmp.dir, store)).toEqual(indexesOf(shared.dataDir, store));
    } finally {
      for (const h of hosted) await h.stop();
      await shared.cleanup();
    }
  });

  it("is idempotent: a second run succeeds and leaves the same indexes", async () => {
    expect((await run({}, "setup", "--data-dir", tmp.dir)).code).toBe(0);
    const first = serviceModules().map((m) => indexesOf(tmp.dir, storeNameOf(m)));
    const again = await run({}, "setup", "--data-dir", tmp.dir);
    expect(again).toMatchObject({ code: 0, err: "" });
    expect(serviceModules().map((m) => indexesOf(tmp.dir, storeNameOf(m)))).toEqual(first);
  });

  it("refuses, in a cluster, to run without MONGO_URL and KAFKA_BROKERS, naming both and touching nothing", async () => {
    const res = await run({ EARSHOT_MODE: "cluster", EARSHOT_DATA_DIR: tmp.dir }, "setup");
    expect(res.code).toBe(1);
    expect(res.err).toContain("MONGO_URL is required when EARSHOT_MODE=cluster");
    expect(res.err).toContain("KAFKA_BROKERS is required when EARSHOT_MODE=cluster");
    expect(res.out).toBe("");
  });

  it("refuses a bad setting from the environment, naming it", async () => {
    const res = await run({ EARSHOT_DATA_DIR: tmp.dir, MONGO_URL: "not a url" }, "setup");
    expect(res.code).toBe(1);
    expect(res.err).toContain("MONGO_URL");
  });

  it.each([
    ["--partitions", "0"],
    ["--partitions", "many"],
    ["--replication-factor", "0"],
  ])("refuses %s %s as bad usage, naming the option", async (flag, value) => {
    const res = await run({ EARSHOT_DATA_DIR: tmp.dir }, "setup", flag, value);
    expect(res.code).toBe(64);
    expect(res.err).toContain(`${flag} must be a whole number`);
  });
});
