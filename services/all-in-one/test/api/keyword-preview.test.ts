import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { mentionV1 } from "@earshot/proto";
import { waitFor } from "../../../platform/src/testing/tmp";
import { type Harness, startHarness } from "./harness";
import { buildWorld, createKeyword, createProject, ingestPosts, type KeywordData, listAllMentions, type MentionData, postFor, type World } from "./world";

// preview_keyword through a running Earshot: the preview of a new keyword is exactly what saving it then
// collects from the same posts; an exclusion added to a keyword lists what it would no longer match; the
// period bound, bad definitions (the same 400 as create_keyword), scope, tenancy, and MCP answering as REST.

const DAY = 86_400_000;
interface Match {
  keywordId: string | null;
  term: string;
  field: string;
  start: number;
  end: number;
}
interface PreviewList {
  count: number;
  mentions: Array<{ mention: MentionData; matches: Match[] }>;
}
interface Preview {
  keywordId: string | null;
  since: string;
  until: string;
  wouldMatch: PreviewList;
  wouldNoLongerMatch: PreviewList | null;
  alreadyMatching: number;
}

let h: Harness;
let w: World;
let broad: KeywordData;
let posts: mentionV1.Post[];
const old = new Date(Date.now() - 10 * DAY);

// A broad keyword collects every post; the previewed one is narrower (an alias, an exclusion, a language
// and an author filter), so each of its rules decides some of the stored posts.
const texts = [
  { text: "Orbitra Cloud is fast" },
  { text: "I moved to OCloud last week" },
  { text: "Orbitra Cloud outage again", sourceId: "outage-1" },
  { text: "Orbitra Cloud est rapide", lang: "fr" },
  { text: "Orbitra Cloud deal, buy now", author: { handle: "spammer" } },
  { text: "Orbitra on-prem only" },
  { text: "nothing to see", title: "Orbitra Cloud review" },
  { text: "Orbitra cloud pricing, case folded" },
  { text: "orbitra outage", sourceId: "outage-2" },
];

beforeAll(async () => {
  h = await startHarness();
  w = await buildWorld(h);
  broad = await createKeyword(h, w.owner, w.projectId, { value: "Orbitra", aliases: ["OCloud"] });
  posts = [...texts.map((t, i) => postFor(w.projectId, { ...t, publishedAt: new Date(Date.now() - (i + 1) * 60_000) })), postFor(w.projectId, { text: "Orbitra Cloud from long ago", publishedAt: old })];
  await ingestPosts(h, posts);
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const NARROW = { value: "Orbitra Cloud", aliases: ["OCloud"], excludedTerms: ["outage"], filters: { languages: ["en"], excludeAuthors: ["@spammer"] } };

const preview = async (input: Record<string, unknown>, key = w.viewer.key) => {
  const res = await h.call("preview_keyword", { projectId: w.projectId, ...input }, key);
  return { res, data: res.body.data as Preview };
};

const spans = (matches: Match[]) => matches.map((m) => [m.term, m.field, m.start, m.end]);

describe("preview_keyword", () => {
  it("matches exactly what saving the rule then collects from the same posts", async () => {
    const { res, data } = await preview(NARROW);
    expect(res.status).toBe(200);
    expect(data.keywordId).toBeNull();
    expect(data.wouldNoLongerMatch).toBeNull();
    expect(data.wouldMatch.count).toBe(4);
    expect(data.wouldMatch.mentions.every((m) => m.matches.every((t) => t.keywordId === null))).toBe(true);
    expect(res.body.meta).toMatchObject({ scanned: 9, truncated: false, scannedFrom: null });

    // Stored mentions are never matched again, so the rule is saved in a fresh project and the same posts
    // are collected there: what it stores is what the preview said.
    const fresh = await createProject(h, w.owner);
    const saved = await createKeyword(h, w.owner, fresh, { ...NARROW, sources: ["x", "reddit", "youtube", "linkedin"] });
    const again = posts.filter((p) => p.publishedAt! > old).map((p) => ({ ...p, projectId: fresh, collectedAt: new Date() }));
    // The keyword reaches the mention service by event: offer the batch until it has matched (one batch, one matcher).
    await waitFor(async () => (await h.mention.ingestPosts({ posts: again })).created > 0, 15_000);
    const collected = await listAllMentions(h, w.owner, fresh);
    const bySourceId = (a: { sourceId: string }, b: { sourceId: string }) => a.sourceId.localeCompare(b.sourceId);
    expect(collected.map((m) => m.sourceId).sort()).toEqual(data.wouldMatch.mentions.map((m) => m.mention.sourceId).sort());
    const previewed = [...data.wouldMatch.mentions].map((m) => ({ sourceId: m.mention.sourceId, spans: spans(m.matches) })).sort(bySourceId);
    const stored = collected.map((m) => ({ sourceId: m.sourceId, spans: spans((m as unknown as { matches: Match[] }).matches) })).sort(bySourceId);
    expect(previewed).toEqual(stored);
    expect(collected.every((m) => m.keywordIds.join() === saved.id)).toBe(true);
  });

  it("changes to a keyword: an exclusion added lists the mentions it would no longer match", async () => {
    const { res, data } = await preview({ keywordId: broad.id, excludedTerms: ["outage"] });
    expect(res.status).toBe(200);
    expect(data.keywordId).toBe(broad.id);
    expect(data.wouldNoLongerMatch?.count).toBe(2);
    expect(data.wouldNoLongerMatch?.mentions.map((m) => m.mention.sourceId).sort()).toEqual(["outage-1", "outage-2"]);
    expect(data.wouldNoLongerMatch?.mentions.every((m) => m.matches.length === 0)).toBe(true);
    expect(data.wouldMatch.count).toBe(7);
    expect(data.alreadyMatching).toBe(7);
    expect(data.wouldMatch.mentions[0]?.matches[0]?.keywordId).toBe(broad.id);
    // Nothing was saved: the keyword is as it was.
    const kept = await h.call("get_keyword", { keywordId: broad.id }, w.viewer.key);
    expect((kept.body.data as { excludedTerms: string[] }).excludedTerms).toEqual([]);
  });

  it("reads the last 7 days by default and at most 30 days", async () => {
    const until = new Date().toISOString();
    // "I moved to OCloud" has no "Orbitra": 8 of the 9 recent posts, and the old one besides over 30 days.
    expect((await preview({ value: "Orbitra" })).data.wouldMatch.count).toBe(8);
    const wide = await preview({ value: "Orbitra", since: new Date(Date.now() - 30 * DAY).toISOString(), until });
    expect(wide.data.wouldMatch.count).toBe(9);
    expect(wide.data.wouldMatch.mentions.map((m) => m.mention.publishedAt)).toEqual([...wide.data.wouldMatch.mentions.map((m) => m.mention.publishedAt)].sort().reverse());
    const tooLong = await preview({ value: "Orbitra", since: new Date(Date.now() - 31 * DAY).toISOString(), until });
    expect(tooLong.res.status).toBe(400);
    expect(tooLong.res.body.errors).toEqual([
      { path: "since", message: "must be at most 30 days before until" },
      { path: "until", message: "must be at most 30 days after since" },
    ]);
    const backwards = await preview({ value: "Orbitra", since: until, until: new Date(Date.now() - DAY).toISOString() });
    expect(backwards.res.status).toBe(400);
    expect(backwards.res.body.errors).toEqual([{ path: "until", message: "must be after since" }]);
  });

  it("refuses a bad definition with the 400 create_keyword answers, naming the fields", async () => {
    const bad = { value: "  ", aliases: ["x", "x"], filters: { languages: ["english"], colour: "red" }, sources: [] };
    const viaPreview = await preview(bad);
    const viaCreate = await h.call("create_keyword", { projectId: w.projectId, ...bad }, w.editor.key);
    expect(viaPreview.res.status).toBe(400);
    expect(viaCreate.status).toBe(400);
    expect(viaPreview.res.body.errors).toEqual(viaCreate.body.errors);
    expect((viaPreview.res.body.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(expect.arrayContaining(["value", "aliases", "sources"]));

    const noValue = await preview({ aliases: ["OCloud"] });
    expect(noValue.res.status).toBe(400);
    expect(noValue.res.body.errors).toEqual([{ path: "value", message: "is required" }]);

    const otherGroup = (await h.call("list_keyword_groups", { projectId: w.strangerProjectId }, w.stranger.key)).body.data as Array<{ id: string }>;
    const foreignGroup = await preview({ value: "Orbitra", groupId: otherGroup[0]!.id });
    expect(foreignGroup.res.status).toBe(400);
    expect(foreignGroup.res.body.errors).toEqual([{ path: "groupId", message: "is not a keyword group of this project" }]);
  });

  it("needs keywords:read, answers 404 for another workspace's project or keyword, and saves nothing on repeat", async () => {
    const mentionsOnly = await h.keyFor(w.owner, ["mentions:read"]);
    const scope = await preview({ value: "Orbitra" }, mentionsOnly);
    expect(scope.res.status).toBe(403);
    expect(scope.res.body.code).toBe("insufficient_scope");
    expect((await preview({ value: "Orbitra" }, w.stranger.key)).res.status).toBe(404);
    const foreignKeyword = await h.call("preview_keyword", { projectId: w.strangerProjectId, keywordId: broad.id, value: "Orbitra" }, w.stranger.key);
    expect(foreignKeyword.status).toBe(404);
    // An Idempotency-Key means nothing to a read: two different previews under one key both answer.
    const first = await h.call("preview_keyword", { projectId: w.projectId, value: "Orbitra" }, w.viewer.key, { idempotencyKey: "preview-key-1" });
    const second = await h.call("preview_keyword", { projectId: w.projectId, value: "OCloud" }, w.viewer.key, { idempotencyKey: "preview-key-1" });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect((second.body.data as Preview).wouldMatch.count).toBe(1);
  });

  it("answers over MCP as over REST, as a read-only tool", async () => {
    const client = new Client({ name: "preview-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${w.viewer.key}` } } }));
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === "preview_keyword");
      expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(Object.keys(tool?.inputSchema.properties ?? {})).not.toContain("idempotencyKey");
      const input = { projectId: w.projectId, keywordId: broad.id, excludedTerms: ["outage"] };
      const viaMcp = await client.callTool({ name: "preview_keyword", arguments: input });
      const viaRest = await preview(input);
      const { data } = viaMcp.structuredContent as { data: Preview };
      expect({ ...data, since: undefined, until: undefined }).toEqual({ ...viaRest.data, since: undefined, until: undefined });
      const refused = await client.callTool({ name: "preview_keyword", arguments: { projectId: w.projectId, value: "Orbitra", since: "2020-01-01T00:00:00Z", until: "2020-03-01T00:00:00Z" } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
