import { createLogger, silentLogger } from "@earshot/platform";
import { type RunningSimulators, startSimulators, youtubeCommentId, youtubeVideoId } from "@earshot/simulators";
import { integrationSettingsOf } from "../config";
import type { CollectKeyword, PollInput, QuotaLedger } from "./collector";
import { ProviderRateLimited, QuotaExhausted } from "./provider-errors";
import { postProblems } from "./post-check-test-support";
import { ProviderHttp } from "./provider-http";
import { createYoutubeCollector, type YoutubeCollectorOptions } from "./youtube";
import { buildYoutubeQueries, MAX_YOUTUBE_Q } from "./youtube-query";
import { nextPacificMidnight } from "./youtube-quota-reset";
import { memoryQuotaLedger } from "./quota-test-support";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const CHANNEL = "UCabcdefghijklmnopqrstuv";

const keyword = (id: string, value: string, more: Partial<CollectKeyword> = {}): CollectKeyword => ({
  id,
  value,
  aliases: [],
  excludedTerms: [],
  caseSensitive: false,
  sources: ["youtube"],
  filters: {},
  ...more,
});

describe("YouTube query building", () => {
  it("ORs a keyword's phrases and aliases with | and appends its exclusions as -\"term\"", () => {
    expect(buildYoutubeQueries([keyword("k1", "Acme Corp", { aliases: ["acme", "ACME corp"], excludedTerms: ["acme jobs"] })])).toEqual([
      { id: '* "Acme Corp" | "acme" -"acme jobs"', q: '"Acme Corp" | "acme" -"acme jobs"', phrases: ["Acme Corp", "acme"] },
    ]);
  });

  it("shares a query only between keywords excluding the same terms, and searches channel-restricted keywords in their channels", () => {
    const queries = buildYoutubeQueries([
      keyword("k1", "acme"),
      keyword("k2", "globex"),
      keyword("k3", "initech", { excludedTerms: ["office space"] }),
      keyword("k4", "hooli", { filters: { youtubeChannels: [CHANNEL, "@hooli"] } }),
      keyword("k5", "pied piper", { filters: { youtubeChannels: ["@handle-only"] } }),
    ]);
    expect(queries.map((q) => [q.q, q.channelId])).toEqual([
      ['"acme" | "globex" | "pied piper"', undefined],
      ['"initech" -"office space"', undefined],
      ['"hooli"', CHANNEL],
    ]);
  });

  it("splits a long list of phrases into queries within the length YouTube reads", () => {
    const many = Array.from({ length: 60 }, (_, i) => keyword(`k${String(i).padStart(2, "0")}`, `brand number ${i}`));
    const queries = buildYoutubeQueries(many);
    expect(queries.length).toBeGreaterThan(1);
    for (const q of queries) expect(q.q.length).toBeLessThanOrEqual(MAX_YOUTUBE_Q);
    expect(queries.flatMap((q) => q.phrases)).toHaveLength(60);
  });

  it("finds the next quota reset at midnight Pacific, in and out of daylight saving time", () => {
    expect(nextPacificMidnight(new Date("2026-11-20T12:00:00Z")).toISOString()).toBe("2026-11-21T08:00:00.000Z");
    expect(nextPacificMidnight(new Date("2026-07-01T06:59:59Z")).toISOString()).toBe("2026-07-01T07:00:00.000Z");
    expect(nextPacificMidnight(new Date("2026-07-01T07:00:00Z")).toISOString()).toBe("2026-07-02T07:00:00.000Z");
  });
});

describe("YouTube collector against the simulator", () => {
  let sims: RunningSimulators;
  let now = NOW;

  const collector = (quota: QuotaLedger = memoryQuotaLedger(1_000_000).ledger, options: YoutubeCollectorOptions = {}) =>
    createYoutubeCollector(
      { settings: integrationSettingsOf(sims.settings), http: new ProviderHttp({ retryBaseMs: 1, random: () => 0, now: () => now }), quota, logger: silentLogger(), now: () => new Date(now) },
      options,
    );
  const input = (keywords: CollectKeyword[], cursor?: unknown): PollInput => ({ projectId: "prj_1", keywords, cursor, now: new Date(now), signal: new AbortController().signal });
  const searches = () => sims.world.requests("youtube").filter((r) => r.path === "/search");

  beforeEach(async () => {
    now = NOW;
    sims = await startSimulators({ platforms: ["youtube"], generate: false, now: () => now });
  });
  afterEach(() => sims.close());

  it("is configured only with an API key", () => {
    expect(collector().configured).toBe(true);
    const settings = integrationSettingsOf({});
    expect(createYoutubeCollector({ settings, http: new ProviderHttp(), quota: memoryQuotaLedger(0).ledger, logger: silentLogger(), now: () => new Date() }).configured).toBe(false);
  });

  it("maps found videos, their statistics and their comments to posts", async () => {
    const video = sims.world.publish("youtube", { title: "Acme &amp; friends? No: Acme's review", text: "Acme's new widget, reviewed", createdAtMs: NOW - 60_000, channelId: CHANNEL, channelTitle: "Widget Reviews", views: 900, likes: 12 });
    const comment = sims.world.publish("youtube", { kind: "comment", parentKey: video.key, text: "acme support was great", createdAtMs: NOW - 30_000, author: { handle: "fan1" }, likes: 3 });
    const out = await collector().poll(input([keyword("k1", "acme")]));
    for (const p of out.posts) expect(postProblems(p)).toEqual([]);
    const videoId = youtubeVideoId(video.key);
    expect(out.posts).toEqual([
      {
        source: "youtube",
        sourceId: videoId,
        url: `https://www.youtube.com/watch?v=${videoId}`,
        title: "Acme &amp; friends? No: Acme's review",
        text: "Acme's new widget, reviewed",
        author: { id: CHANNEL, handle: "Widget Reviews", name: "Widget Reviews", url: `https://www.youtube.com/channel/${CHANNEL}` },
        publishedAt: new Date(NOW - 60_000).toISOString(),
        channelId: CHANNEL,
        channelHandle: "Widget Reviews",
        metrics: { likes: 12, replies: 1, shares: 0, views: 900 },
      },
      expect.objectContaining({
        source: "youtube",
        sourceId: youtubeCommentId(comment.key),
        url: `https://www.youtube.com/watch?v=${videoId}&lc=${youtubeCommentId(comment.key)}`,
        text: "acme support was great",
        author: expect.objectContaining({ id: expect.stringMatching(/^UC/), handle: "@fan1", name: "@fan1" }),
        parentId: videoId,
        publishedAt: new Date(NOW - 30_000).toISOString(),
        metrics: { likes: 3, replies: 0, shares: 0, views: 0 },
      }),
    ]);
    const threads = sims.world.requests("youtube").find((r) => r.path === "/commentThreads");
    expect(threads?.query).toEqual(expect.objectContaining({ videoId, searchTerms: "acme", order: "time" }));
  });

  it("sends one search per query with phrases ORed, exclusions, channelId, order=date and publishedAfter", async () => {
    await collector().poll(input([keyword("k1", "acme", { aliases: ["acme corp"], excludedTerms: ["jobs"] }), keyword("k2", "hooli", { filters: { youtubeChannels: [CHANNEL] } })]));
    expect(searches().map((r) => r.query)).toEqual([
      expect.objectContaining({ q: '"acme" | "acme corp" -"jobs"', type: "video", order: "date", publishedAfter: "2026-11-19T12:00:00Z", maxResults: "50", part: "snippet" }),
      expect.objectContaining({ q: '"hooli"', channelId: CHANNEL }),
    ]);
  });

  it("reads a search's pages across polls within the page bound, then resumes from the newest video, without duplicates", async () => {
    for (let i = 0; i < 120; i++) sims.world.publish("youtube", { title: `acme clip ${i}`, text: "x", createdAtMs: NOW - 200_000 + i * 1000 });
    const c = collector(undefined, { maxSearchPages: 2, commentVideos: 0 });
    const first = await c.poll(input([keyword("k1", "acme")]));
    expect(first.posts).toHaveLength(100);
    const second = await c.poll(input([keyword("k1", "acme")], first.cursor));
    expect(second.posts.map((p) => p.title)).toEqual(Array.from({ length: 20 }, (_, i) => `acme clip ${19 - i}`));
    expect(searches()[2]?.query.pageToken).toBeTruthy();
    now += 60_000;
    sims.world.publish("youtube", { title: "acme clip new", text: "x", createdAtMs: now - 1000 });
    const third = await c.poll(input([keyword("k1", "acme")], second.cursor));
    expect(third.posts.map((p) => p.title)).toEqual(["acme clip new"]);
    expect(searches()[3]?.query.publishedAfter).toBe(new Date(NOW - 200_000 + 119_000).toISOString().replace(".000Z", "Z"));
    const all = [...first.posts, ...second.posts, ...third.posts].map((p) => p.sourceId);
    expect(new Set(all).size).toBe(all.length);
  });

  it("resumes from a stored cursor after a restart, emitting only what is new", async () => {
    sims.world.publish("youtube", { title: "acme one", text: "x", createdAtMs: NOW - 5_000 });
    const first = await collector().poll(input([keyword("k1", "acme")]));
    expect(first.posts.map((p) => p.title)).toEqual(["acme one"]);
    const stored = JSON.parse(JSON.stringify(first.cursor)) as unknown;
    now += 60_000;
    sims.world.publish("youtube", { title: "acme two", text: "x", createdAtMs: now - 1_000 });
    const restarted = await collector().poll(input([keyword("k1", "acme")], stored));
    expect(restarted.posts.map((p) => p.title)).toEqual(["acme two"]);
    const again = await collector().poll(input([keyword("k1", "acme")], restarted.cursor));
    expect(again.posts).toEqual([]);
  });

  it("takes 100 units before each search and 1 before each list call, reporting what is left", async () => {
    sims.world.publish("youtube", { title: "acme a", text: "x", createdAtMs: NOW - 5_000 });
    sims.world.publish("youtube", { title: "acme b", text: "x", createdAtMs: NOW - 4_000 });
    const { ledger, takes } = memoryQuotaLedger(10_000);
    const out = await collector(ledger).poll(input([keyword("k1", "acme")]));
    expect(takes).toEqual([
      { source: "youtube", units: 100, granted: true },
      { source: "youtube", units: 1, granted: true },
      { source: "youtube", units: 1, granted: true },
      { source: "youtube", units: 1, granted: true },
    ]);
    expect(out.quotaLeft).toBe(10_000 - 103);
  });

  it("throws QuotaExhausted with the ledger's reset when the budget refuses the first search, calling nothing", async () => {
    const resetAt = new Date("2026-11-21T08:00:00Z");
    const err = await collector(memoryQuotaLedger(99, resetAt).ledger).poll(input([keyword("k1", "acme")])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuotaExhausted);
    expect((err as QuotaExhausted).resetAt).toEqual(resetAt);
    expect(searches()).toHaveLength(0);
  });

  it("keeps what it found when the budget runs out mid-poll and backs off until the reset", async () => {
    sims.world.publish("youtube", { title: "acme a", text: "x", createdAtMs: NOW - 5_000 });
    const resetAt = new Date("2026-11-21T08:00:00Z");
    const out = await collector(memoryQuotaLedger(100, resetAt).ledger).poll(input([keyword("k1", "acme")]));
    expect(out.posts.map((p) => p.title)).toEqual(["acme a"]);
    expect(out.posts[0]?.metrics).toBeUndefined();
    expect(out.backoffUntil).toEqual(resetAt);
    expect(out.quotaLeft).toBe(0);
  });

  it("treats Google's 403 quotaExceeded as the quota spent until midnight Pacific", async () => {
    await sims.close();
    sims = await startSimulators({ platforms: ["youtube"], generate: false, now: () => now, youtubeDailyQuota: 50 });
    const err = await collector().poll(input([keyword("k1", "acme")])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuotaExhausted);
    expect((err as QuotaExhausted).resetAt.toISOString()).toBe("2026-11-21T08:00:00.000Z");
  });

  it("surfaces a 429 as ProviderRateLimited with the Retry-After", async () => {
    sims.world.fail("youtube", { status: 429, retryAfterSeconds: 90 });
    const err = await collector().poll(input([keyword("k1", "acme")])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderRateLimited);
    expect((err as ProviderRateLimited).retryAt.getTime()).toBe(NOW + 90_000);
  });

  it.each(["rateLimitExceeded", "userRateLimitExceeded"])("surfaces Google's 403 %s as ProviderRateLimited, with the Retry-After or a minute", async (reason) => {
    sims.world.fail("youtube", { status: 403, reason, retryAfterSeconds: 120 });
    const named = await collector().poll(input([keyword("k1", "acme")])).catch((e: unknown) => e);
    expect(named).toBeInstanceOf(ProviderRateLimited);
    expect((named as ProviderRateLimited).retryAt.getTime()).toBe(NOW + 120_000);
    sims.world.fail("youtube", { status: 403, reason, retryAfterSeconds: 0 });
    const unnamed = await collector().poll(input([keyword("k1", "acme")])).catch((e: unknown) => e);
    expect(unnamed).toBeInstanceOf(ProviderRateLimited);
    expect((unnamed as ProviderRateLimited).retryAt.getTime()).toBe(NOW + 60_000);
  });

  it("skips a video whose comments are refused, logs it at warn, drops it from the watch list and goes on", async () => {
    const hidden = sims.world.publish("youtube", { title: "acme private", text: "x", createdAtMs: NOW - 60_000 });
    const open = sims.world.publish("youtube", { title: "acme public", text: "x", createdAtMs: NOW - 50_000 });
    sims.world.publish("youtube", { kind: "comment", parentKey: hidden.key, text: "acme hidden comment", createdAtMs: NOW - 40_000 });
    const visible = sims.world.publish("youtube", { kind: "comment", parentKey: open.key, text: "acme visible comment", createdAtMs: NOW - 30_000 });
    sims.world.fail("youtube", { status: 403, reason: "forbidden", matching: `videoId=${youtubeVideoId(hidden.key)}` });
    const logs: Array<Record<string, unknown>> = [];
    const logger = createLogger("integration-test", { level: "warn", destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) } });
    const c = createYoutubeCollector({ settings: integrationSettingsOf(sims.settings), http: new ProviderHttp({ retryBaseMs: 1, random: () => 0, now: () => now }), quota: memoryQuotaLedger(1_000_000).ledger, logger, now: () => new Date(now) });
    const out = await c.poll(input([keyword("k1", "acme")]));
    expect(out.posts.map((p) => p.sourceId).sort()).toEqual([youtubeVideoId(hidden.key), youtubeVideoId(open.key), youtubeCommentId(visible.key)].sort());
    expect(out.skipped).toBe(1);
    expect(logs).toEqual([expect.objectContaining({ level: 40, videoId: youtubeVideoId(hidden.key), status: 403 })]);
    expect((out.cursor as { watch: Array<{ videoId: string }> }).watch.map((w) => w.videoId)).toEqual([youtubeVideoId(open.key)]);
  });

  it("reads a video's new comments beyond one poll's pages on the next poll before moving past them", async () => {
    const video = sims.world.publish("youtube", { title: "acme busy", text: "x", createdAtMs: NOW - 600_000 });
    const first = await collector(undefined, { commentPages: 1 }).poll(input([keyword("k1", "acme")]));
    expect(first.posts).toHaveLength(1);
    for (let i = 0; i < 150; i++) sims.world.publish("youtube", { kind: "comment", parentKey: video.key, text: `acme comment ${i}`, createdAtMs: NOW + 1_000 + i * 100 });
    now += 60_000;
    const second = await collector(undefined, { commentPages: 1 }).poll(input([keyword("k1", "acme")], first.cursor));
    expect(second.posts).toHaveLength(100);
    const third = await collector(undefined, { commentPages: 1 }).poll(input([keyword("k1", "acme")], second.cursor));
    expect(third.posts.map((p) => p.text)).toEqual(Array.from({ length: 50 }, (_, i) => `acme comment ${49 - i}`));
    now += 60_000;
    sims.world.publish("youtube", { kind: "comment", parentKey: video.key, text: "acme comment late", createdAtMs: now - 1_000 });
    const fourth = await collector(undefined, { commentPages: 1 }).poll(input([keyword("k1", "acme")], third.cursor));
    expect(fourth.posts.map((p) => p.text)).toEqual(["acme comment late"]);
  });

  it("retries a 5xx and then succeeds", async () => {
    sims.world.publish("youtube", { title: "acme a", text: "x", createdAtMs: NOW - 5_000 });
    sims.world.fail("youtube", { status: 503, count: 2 });
    const out = await collector().poll(input([keyword("k1", "acme")]));
    expect(out.posts.map((p) => p.title)).toEqual(["acme a"]);
    expect(searches()).toHaveLength(3);
  });

  it("skips malformed items and keeps the rest", async () => {
    sims.world.publish("youtube", { title: "acme a", text: "x", createdAtMs: NOW - 5_000 });
    sims.world.publish("youtube", { title: "acme b", text: "x", createdAtMs: NOW - 4_000 });
    sims.world.malform("youtube", 1);
    const out = await collector().poll(input([keyword("k1", "acme")]));
    expect(out.skipped).toBe(1);
    expect(out.posts.map((p) => p.title)).toEqual(["acme b", "acme a"]);
  });
});
