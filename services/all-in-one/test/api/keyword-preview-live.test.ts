import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { type Harness, startHarness } from "./harness";
import { buildWorld, listAllMentions, type World } from "./world";

// preview_keyword's live sample through a running Earshot whose sources are all simulated (as `make run`
// without credentials): one page of each searchable source's search, matched like the stored part, with
// each source's status; nothing stored, no quota taken; absent without liveSample; a non-boolean is a 400
// naming it; MCP answers as REST. The project has no keyword, so no poller runs beside the previews.

interface Match {
  keywordId: string | null;
  term: string;
  field: string;
  start: number;
  end: number;
}
interface SamplePost {
  source: string;
  sourceId: string;
  url: string;
  title: string | null;
  text: string;
  publishedAt: string;
  matches: Match[];
}
interface SourceSample {
  source: string;
  status: "ok" | "unavailable" | "skipped";
  reason: string | null;
  simulated: boolean;
  found: number;
  matched: number;
  dropped: number;
  posts: SamplePost[];
}
interface LiveSample {
  perSource: number;
  total: number;
  sources: SourceSample[];
}

let sims: RunningSimulators;
let h: Harness;
let w: World;

beforeAll(async () => {
  sims = await startSimulators({ generate: true, generateEveryMs: 1_000, backfill: 3 });
  h = await startHarness({ ...sims.settings, EARSHOT_SIMULATED_SOURCES: "x,reddit,youtube,linkedin" });
  w = await buildWorld(h);
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await sims?.close();
});

const DEFINITION = { value: "Zephyrquill", sources: ["x", "reddit", "youtube", "linkedin"] };

const preview = async (input: Record<string, unknown>) => {
  const res = await h.call("preview_keyword", { projectId: w.projectId, ...input }, w.viewer.key);
  return { res, sample: (res.body.data as { liveSample: LiveSample | null } | undefined)?.liveSample };
};

const youtubeQuotaLeft = async () => {
  const res = await h.call("get_source_health", { projectId: w.projectId }, w.owner.key);
  return (res.body.data as { sources: Array<{ source: string; quotaLeft: number | null }> }).sources.find((s) => s.source === "youtube")?.quotaLeft;
};

describe("preview_keyword with liveSample", () => {
  it("samples X, Reddit and YouTube from their search, matched, and stores nothing", async () => {
    const usageBefore = await h.call("get_usage", {}, w.owner.key);
    const quotaBefore = await youtubeQuotaLeft();

    const { res, sample } = await preview({ ...DEFINITION, liveSample: true });
    expect(res.status).toBe(200);
    expect(sample).not.toBeNull();
    const live = sample as LiveSample;
    expect({ perSource: live.perSource, total: live.total }).toEqual({ perSource: 10, total: 20 });
    const by = Object.fromEntries(live.sources.map((s) => [s.source, s]));
    for (const source of ["x", "reddit", "youtube"]) {
      const s = by[source]!;
      expect({ source, status: s.status, reason: s.reason, simulated: s.simulated }).toEqual({ source, status: "ok", reason: null, simulated: true });
      expect(s.posts.length).toBeGreaterThan(0);
      expect(s.posts.length).toBeLessThanOrEqual(10);
      expect(s.found).toBe(s.matched + s.dropped);
      for (const p of s.posts) {
        expect(p.source).toBe(source);
        expect(p.matches.length).toBeGreaterThan(0);
        for (const m of p.matches) {
          expect(m.keywordId).toBeNull();
          const field = m.field === "title" ? (p.title ?? "") : p.text;
          expect(field.slice(m.start, m.end).toLowerCase()).toBe("zephyrquill");
        }
      }
    }
    // LinkedIn reads a Page's notifications, not a search.
    expect(by.linkedin?.status).toBe("skipped");
    expect(live.sources.reduce((n, s) => n + s.posts.length, 0)).toBeLessThanOrEqual(20);

    expect(await listAllMentions(h, w.owner, w.projectId)).toEqual([]);
    expect(await youtubeQuotaLeft()).toBe(quotaBefore);
    const usageAfter = await h.call("get_usage", {}, w.owner.key);
    expect(usageAfter.body.data).toEqual(usageBefore.body.data);
  }, 30_000);

  // allOf is not part of the search query, so every post the search finds lacks the second phrase.
  it("counts the posts the definition would not keep as dropped, and skips sources it does not name", async () => {
    const { res, sample } = await preview({ value: "Zephyrquill", sources: ["x"], filters: { allOf: ["Vexlomarine"] }, liveSample: true });
    expect(res.status).toBe(200);
    const by = Object.fromEntries((sample as LiveSample).sources.map((s) => [s.source, s]));
    expect(by.x).toMatchObject({ status: "ok", matched: 0, posts: [] });
    expect(by.x!.dropped).toBe(by.x!.found);
    expect(by.x!.found).toBeGreaterThan(0);
    for (const source of ["reddit", "youtube", "linkedin"]) expect(by[source]).toMatchObject({ status: "skipped", reason: "not a source of the definition", posts: [] });
  }, 30_000);

  it("answers no sample when liveSample is false or absent", async () => {
    for (const input of [DEFINITION, { ...DEFINITION, liveSample: false }]) {
      const { res, sample } = await preview(input);
      expect(res.status).toBe(200);
      expect(sample).toBeNull();
    }
  });

  it("refuses a liveSample that is not a boolean, naming it", async () => {
    const { res } = await preview({ ...DEFINITION, liveSample: "yes" });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("liveSample");
  });

  it("answers over MCP in the shape REST does", async () => {
    const client = new Client({ name: "preview-live-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${w.viewer.key}` } } }));
    try {
      const input = { projectId: w.projectId, ...DEFINITION, liveSample: true };
      const viaMcp = await client.callTool({ name: "preview_keyword", arguments: input });
      const { data } = viaMcp.structuredContent as { data: { liveSample: LiveSample } };
      const { sample } = await preview(input);
      // The simulators generate posts every second, so the two samples' posts differ; their shape does not.
      const shape = (l: LiveSample) => ({ ...l, sources: l.sources.map((s) => ({ source: s.source, status: s.status, reason: s.reason, simulated: s.simulated, keys: Object.keys(s).sort(), postKeys: Object.keys(s.posts[0] ?? {}).sort() })) });
      expect(shape(data.liveSample)).toEqual(shape(sample as LiveSample));
    } finally {
      await client.close();
    }
  }, 30_000);
});
