import { ALL_SCOPES } from "@earshot/account/scopes";
import { silentLogger } from "@earshot/platform";
import { connectServices, serviceAddresses } from "@earshot/registry";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { type RunningEarshot, startAllInOne } from "../src/all-in-one";
import { loadAllInOneConfig } from "../src/config";
import { ingestPosts, postFor } from "./api/world";
import type { Harness } from "./api/harness";
import { FREE_SOURCES_NOWHERE } from "./api/offline-sources";

// What the change feed is for: an agent without subscriptions keeps its cursor, Earshot restarts (every
// process, the same data directory), and the agent carries on from the cursor, getting every change made
// since it last read, each once, and nothing it had already.

const configFor = (dataDir: string) =>
  loadAllInOneConfig({ EARSHOT_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "silent", EARSHOT_STORE_SYNC: "normal", EARSHOT_SIMULATORS: "off", ...FREE_SOURCES_NOWHERE });

interface Change {
  id: string;
  change: string;
  status: string;
}

describe("the change feed across a restart of Earshot", () => {
  it("carries a reader on from its cursor without loss or repeat", async () => {
    const tmp = await makeTempDir();
    let running: RunningEarshot | undefined;
    try {
      running = await startAllInOne(configFor(tmp.dir), silentLogger());
      const addr = (r: RunningEarshot) => (name: string) => r.services.find((s) => s.name === name)?.address ?? "";
      let services = connectServices(serviceAddresses(addr(running)), running.callKeys);
      const { user } = await services.clients.account.createUser({ email: "feed@example.com", name: "Feed", password: "correct horse battery" });
      const key = (await services.clients.account.createApiKey({ userId: user!.id, name: "agent", scopes: [...ALL_SCOPES], granterScopes: [], operator: true })).plaintext;
      const api = async (url: string, method: string, path: string, body?: unknown) => {
        const res = await fetch(`${url}/api/v1${path}`, {
          method,
          headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return (await res.json()) as { data: unknown; meta: { nextCursor: string; hasMore: boolean } };
      };
      const projectId = ((await api(running.url, "POST", "/projects", { name: "Feed" })).data as { id: string }).id;
      await api(running.url, "POST", "/keywords", { projectId, value: "Zephyrrestart" });
      const ingest = (n: number) => ingestPosts({ mention: services.clients.mention } as Harness, Array.from({ length: n }, () => postFor(projectId, { text: "Zephyrrestart lands" })));
      await ingest(3);
      const first = await api(running.url, "GET", `/mentions/changes?projectId=${projectId}`);
      const seen = first.data as Change[];
      expect(seen.map((c) => c.change)).toEqual(["created", "created", "created"]);
      const cursor = first.meta.nextCursor;
      // Changes the agent has not read when Earshot stops.
      await ingest(2);
      await api(running.url, "PATCH", `/mentions/${seen[0]!.id}`, { status: "done" });
      services.close();
      await running.stop();

      running = await startAllInOne(configFor(tmp.dir), silentLogger());
      services = connectServices(serviceAddresses(addr(running)), running.callKeys);
      const after = await api(running.url, "GET", `/mentions/changes?projectId=${projectId}&cursor=${encodeURIComponent(cursor)}`);
      const changes = after.data as Change[];
      expect(changes.map((c) => c.change)).toEqual(["created", "created", "updated"]);
      expect(changes[2]).toMatchObject({ id: seen[0]!.id, status: "done" });
      expect(new Set(changes.map((c) => c.id)).size).toBe(3);
      expect(changes.slice(0, 2).every((c) => !seen.some((s) => s.id === c.id))).toBe(true);
      const quiet = await api(running.url, "GET", `/mentions/changes?projectId=${projectId}&cursor=${encodeURIComponent(after.meta.nextCursor)}`);
      expect(quiet.data).toEqual([]);
      services.close();
    } finally {
      await running?.stop();
      await tmp.cleanup();
    }
  }, 60_000);
});
