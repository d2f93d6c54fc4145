import { ManualClock } from "@earshot/platform";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { waitFor } from "../../../platform/src/testing/tmp";
import { type Harness, startHarness } from "./harness";
import { buildWorld, createKeyword, createProject, ingestPosts, type KeywordData, postFor, type World } from "./world";

// list_mention_changes through a running Earshot: the catch-up loop over REST and MCP alike, the long poll
// woken by an import, the per-credential bound on waiting calls, 410 past the retention, and the refusals.

const DAY = 86_400_000;
const clock = new ManualClock(new Date());

let h: Harness;
let w: World;
let keyword: KeywordData;
beforeAll(async () => {
  h = await startHarness({}, clock);
  w = await buildWorld(h);
  keyword = await createKeyword(h, w.owner, w.projectId, { value: "Zephyrfeed" });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

interface ChangeData {
  id: string;
  change: "created" | "updated";
  status: string;
}
interface ChangesMeta {
  nextCursor: string;
  hasMore: boolean;
}

const importPosts = (n: number) => ingestPosts(h, Array.from({ length: n }, () => postFor(w.projectId, { text: `${keyword.value} shipped` })));
const changes = async (input: Record<string, unknown>, key = w.viewer.key) => {
  const res = await h.call("list_mention_changes", { projectId: w.projectId, ...input }, key);
  return { res, data: res.body.data as ChangeData[], meta: res.body.meta as unknown as ChangesMeta };
};

describe("list_mention_changes", () => {
  it("catches up from a cursor over REST and MCP alike: created, then updated in its latest state", async () => {
    const start = await changes({ cursor: "latest" });
    expect(start.res.status).toBe(200);
    expect(start.data).toEqual([]);
    await importPosts(3);
    const first = await changes({ cursor: start.meta.nextCursor, limit: 2 });
    expect(first.data.map((c) => c.change)).toEqual(["created", "created"]);
    expect(first.meta.hasMore).toBe(true);
    const rest = await changes({ cursor: first.meta.nextCursor });
    expect(rest.data.map((c) => c.change)).toEqual(["created"]);
    expect(rest.meta.hasMore).toBe(false);
    expect(await h.call("update_mention_status", { mentionId: first.data[0]!.id, status: "done" }, w.editor.key)).toMatchObject({ status: 200 });
    const updated = await changes({ cursor: rest.meta.nextCursor });
    expect(updated.data.map((c) => [c.id, c.change, c.status])).toEqual([[first.data[0]!.id, "updated", "done"]]);

    const client = new Client({ name: "feed-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${w.viewer.key}` } } }));
    try {
      for (const cursor of [start.meta.nextCursor, rest.meta.nextCursor]) {
        const tool = await client.callTool({ name: "list_mention_changes", arguments: { projectId: w.projectId, cursor } });
        const viaRest = await changes({ cursor });
        const { data, meta } = tool.structuredContent as { data: unknown; meta: ChangesMeta };
        expect(data).toEqual(viaRest.data);
        expect(meta.hasMore).toBe(viaRest.meta.hasMore);
      }
      const refused = await client.callTool({ name: "list_mention_changes", arguments: { projectId: w.projectId, cursor: "not-a-cursor" } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("answers a waiting read as soon as an import commits, well before its wait ends", async () => {
    const { meta } = await changes({ cursor: "latest" });
    const began = Date.now();
    const waiting = changes({ cursor: meta.nextCursor, wait: 10 });
    await waitFor(() => h.running.gateway.waitSlots.waiting() === 1);
    await importPosts(1);
    const imported = Date.now();
    const answer = await waiting;
    expect(answer.data.map((c) => c.change)).toEqual(["created"]);
    expect(Date.now()).toBeGreaterThanOrEqual(imported);
    expect(Date.now() - began).toBeLessThan(8_000);
    expect(h.running.gateway.waitSlots.waiting()).toBe(0);
  });

  it("holds at most 4 waiting reads per credential: one more is 429 naming wait, and a client going away frees its slot", async () => {
    const { meta } = await changes({ cursor: "latest" });
    const key = await h.keyFor(w.viewer, ["mentions:read"]);
    const url = `${h.url}${h.pathOf("list_mention_changes", { projectId: w.projectId, cursor: meta.nextCursor, wait: 30 })}`;
    const aborts = Array.from({ length: 4 }, () => new AbortController());
    const held = aborts.map((a) => fetch(url, { headers: { Authorization: `Bearer ${key}` }, signal: a.signal }).catch(() => undefined));
    try {
      await waitFor(() => h.running.gateway.waitSlots.waiting() === 4);
      const refused = await changes({ cursor: meta.nextCursor, wait: 30 }, key);
      expect(refused.res.status).toBe(429);
      expect(refused.res.body.code).toBe("rate_limited");
      expect(refused.res.body.errors?.map((e) => e.path)).toEqual(["wait"]);
      expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
      // Reads that do not wait are not bounded.
      expect((await changes({ cursor: meta.nextCursor }, key)).res.status).toBe(200);
      aborts[0]!.abort();
      await waitFor(() => h.running.gateway.waitSlots.waiting() === 3);
    } finally {
      for (const a of aborts) a.abort();
      await Promise.all(held);
    }
    await waitFor(() => h.running.gateway.waitSlots.waiting() === 0);
  });

  it("refuses bad input naming the field, hides another workspace's project and needs mentions:read", async () => {
    const foreign = (await h.call("list_mention_changes", { projectId: w.strangerProjectId }, w.stranger.key)).body.meta as unknown as ChangesMeta;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ cursor: "not-a-cursor" }, "cursor"],
      [{ cursor: foreign.nextCursor }, "cursor"],
      [{ wait: 31 }, "wait"],
      [{ limit: 0 }, "limit"],
    ];
    for (const [input, field] of cases) {
      const { res } = await changes(input);
      expect([res.status, res.body.errors?.map((e) => e.path)]).toEqual([400, [field]]);
    }
    expect((await changes({}, w.stranger.key)).res.status).toBe(404);
    const otherProject = await createProject(h, w.stranger);
    expect((await h.call("list_mention_changes", { projectId: otherProject }, w.viewer.key)).status).toBe(404);
    const noRead = await h.keyFor(w.viewer, ["projects:read"]);
    const forbidden = (await changes({}, noRead)).res;
    expect([forbidden.status, forbidden.body.code]).toEqual([403, "insufficient_scope"]);
  });

  // Last: it moves the instance's clock past the retention.
  it("answers 410 cursor_expired with the oldest cursor still served, which reads on", async () => {
    const old = await changes({});
    clock.advance(31 * DAY);
    await importPosts(1);
    const expired = (await changes({ cursor: old.meta.nextCursor })).res;
    expect([expired.status, expired.body.code]).toEqual([410, "cursor_expired"]);
    const oldestCursor = expired.body.oldestCursor as string;
    const resumed = await changes({ cursor: oldestCursor });
    expect(resumed.res.status).toBe(200);
    expect(resumed.data.map((c) => c.change)).toEqual(["created"]);
  });
});
