/* eslint-disable @typescript-eslint/no-explicit-any -- these tests walk the providers' raw JSON as it is on the wire */
import { startSimulators, type RunningSimulators } from "./index";
import { SIM_CREDENTIALS, SIM_PREFIXES } from "./settings";
import { youtubeVideoId } from "./youtube-ids";
import { parseYoutubeQuery } from "./youtube-query";

const NOW = Date.parse("2026-11-20T12:00:00Z");

describe("YouTube simulator", () => {
  let sims: RunningSimulators;
  const get = async (path: string, params: Record<string, string>, key: string = SIM_CREDENTIALS.youtubeApiKey) => {
    const res = await fetch(`${sims.origin}${SIM_PREFIXES.youtubeApi}${path}?${new URLSearchParams({ ...params, key })}`);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  afterEach(() => sims?.close());

  it("reads q as YouTube does: quoted phrases, | between alternatives, - exclusions", () => {
    expect(parseYoutubeQuery('"acme corp" | acme | "acme labs" -"acme jobs" -spam')).toEqual({ anyOf: ["acme corp", "acme", "acme labs"], noneOf: ["acme jobs", "spam"] });
  });

  it("answers searches with generated videos that contain the term, in search.list's shape", async () => {
    sims = await startSimulators({ platforms: ["youtube"], now: () => NOW });
    const { status, body } = await get("/search", { part: "snippet", q: '"earshot demo"', type: "video", order: "date", maxResults: "50" });
    expect(status).toBe(200);
    expect(body.items.length).toBeGreaterThan(0);
    for (const item of body.items) {
      expect(item.id.videoId).toMatch(/^[A-Za-z0-9_-]{11}$/);
      expect(`${item.snippet.title} ${item.snippet.description}`.toLowerCase()).toContain("earshot demo");
      expect(item.snippet).toEqual(expect.objectContaining({ publishedAt: expect.stringMatching(/Z$/), channelId: expect.stringMatching(/^UC/), channelTitle: expect.any(String) }));
    }
  });

  it("applies alternatives, exclusions, publishedAfter and channelId to published videos", async () => {
    sims = await startSimulators({ platforms: ["youtube"], generate: false, now: () => NOW });
    const w = sims.world;
    const a = w.publish("youtube", { title: "Acme review", text: "all good", createdAtMs: NOW - 5_000, channelId: "UCaaaaaaaaaaaaaaaaaaaaaa" });
    const b = w.publish("youtube", { title: "Globex unboxing", text: "nice", createdAtMs: NOW - 4_000 });
    w.publish("youtube", { title: "Acme jobs", text: "we are hiring", createdAtMs: NOW - 3_000 });
    w.publish("youtube", { title: "Acme old", text: "old", createdAtMs: NOW - 100_000 });
    const ids = async (params: Record<string, string>) => (await get("/search", { part: "snippet", type: "video", ...params })).body.items.map((i: any) => i.id.videoId);
    const after = new Date(NOW - 10_000).toISOString();
    expect(await ids({ q: '"acme" | "globex" -"jobs"', publishedAfter: after })).toEqual([youtubeVideoId(b.key), youtubeVideoId(a.key)]);
    expect(await ids({ q: "acme", publishedAfter: after, channelId: "UCaaaaaaaaaaaaaaaaaaaaaa" })).toEqual([youtubeVideoId(a.key)]);
    // publishedAfter is "at or after", as Google's is.
    expect(await ids({ q: "globex", publishedAfter: new Date(NOW - 4_000).toISOString() })).toEqual([youtubeVideoId(b.key)]);
  });

  it("pages with nextPageToken and refuses maxResults over 50", async () => {
    sims = await startSimulators({ platforms: ["youtube"], generate: false, now: () => NOW });
    for (let i = 0; i < 7; i++) sims.world.publish("youtube", { title: `paging ${i}`, text: "x", createdAtMs: NOW - 1000 * (i + 1) });
    const first = await get("/search", { part: "snippet", q: "paging", maxResults: "5" });
    expect(first.body.items).toHaveLength(5);
    const second = await get("/search", { part: "snippet", q: "paging", maxResults: "5", pageToken: first.body.nextPageToken });
    expect(second.body.items.map((i: any) => i.snippet.title)).toEqual(["paging 5", "paging 6"]);
    expect(second.body.nextPageToken).toBeUndefined();
    expect((await get("/search", { part: "snippet", q: "paging", maxResults: "51" })).status).toBe(400);
  });

  it("refuses an unknown key with Google's keyInvalid error", async () => {
    sims = await startSimulators({ platforms: ["youtube"], now: () => NOW });
    const { status, body } = await get("/search", { part: "snippet", q: "x" }, "wrong");
    expect(status).toBe(400);
    expect(body.error).toEqual(expect.objectContaining({ code: 400, errors: [expect.objectContaining({ reason: "keyInvalid", domain: "usageLimits" })] }));
  });

  it("meters 100 units a search and 1 a list call, answering 403 quotaExceeded over the daily budget", async () => {
    sims = await startSimulators({ platforms: ["youtube"], now: () => NOW, youtubeDailyQuota: 201 });
    expect((await get("/search", { part: "snippet", q: "quota" })).status).toBe(200);
    expect((await get("/search", { part: "snippet", q: "quota" })).status).toBe(200);
    const over = await get("/search", { part: "snippet", q: "quota" });
    expect(over.status).toBe(403);
    expect(over.body.error.errors[0]).toEqual(expect.objectContaining({ reason: "quotaExceeded", domain: "youtube.quota" }));
    expect((await get("/videos", { part: "statistics", id: "AAAAAAAAAAA" })).status).toBe(200);
    expect((await get("/videos", { part: "statistics", id: "AAAAAAAAAAA" })).status).toBe(403);
  });

  it("answers statistics as strings and comment threads of published and generated videos", async () => {
    sims = await startSimulators({ platforms: ["youtube"], now: () => NOW });
    const video = sims.world.publish("youtube", { title: "Widget teardown", text: "the widget inside", createdAtMs: NOW - 60_000, views: 1234, likes: 56 });
    sims.world.publish("youtube", { kind: "comment", parentKey: video.key, text: "my widget broke", createdAtMs: NOW - 30_000, author: { handle: "viewer1" } });
    sims.world.publish("youtube", { kind: "comment", parentKey: video.key, text: "unrelated", createdAtMs: NOW - 20_000 });
    const id = youtubeVideoId(video.key);
    const stats = await get("/videos", { part: "statistics", id });
    expect(stats.body.items[0]).toEqual(expect.objectContaining({ id, statistics: expect.objectContaining({ viewCount: "1234", likeCount: "56", commentCount: "2" }) }));
    const threads = await get("/commentThreads", { part: "snippet", videoId: id, searchTerms: "widget", order: "time" });
    expect(threads.body.items).toHaveLength(1);
    expect(threads.body.items[0].snippet.topLevelComment.snippet).toEqual(expect.objectContaining({ textOriginal: "my widget broke", authorDisplayName: "@viewer1", authorChannelId: { value: expect.stringMatching(/^UC/) } }));
    const found = await get("/search", { part: "snippet", q: "gizmo", maxResults: "1" });
    const generated = await get("/commentThreads", { part: "snippet", videoId: found.body.items[0].id.videoId, searchTerms: "gizmo" });
    expect(generated.body.items.length).toBeGreaterThan(0);
    for (const t of generated.body.items) expect(t.snippet.topLevelComment.snippet.textOriginal.toLowerCase()).toContain("gizmo");
  });

  it("still has a generated video after a restart, so the comments of a video found before it are read, not refused", async () => {
    sims = await startSimulators({ platforms: ["youtube"], now: () => NOW });
    const found = await get("/search", { part: "snippet", q: '"earshot demo"', type: "video", maxResults: "3" });
    const ids: string[] = found.body.items.map((i: any) => i.id.videoId);
    const threadsOf = async (videoId: string) => get("/commentThreads", { part: "snippet", videoId, searchTerms: "earshot demo", order: "time" });
    const before = await Promise.all(ids.map(async (id) => (await threadsOf(id)).body.items.map((t: any) => t.id)));
    await sims.close();

    // A new run of the simulators (Earshot restarted), an hour later: nothing searched yet.
    sims = await startSimulators({ platforms: ["youtube"], now: () => NOW + 3_600_000 });
    for (const [i, id] of ids.entries()) {
      const after = await threadsOf(id);
      expect({ id, status: after.status }).toEqual({ id, status: 200 });
      // The same comments, and any written since.
      expect(after.body.items.map((t: any) => t.id)).toEqual(expect.arrayContaining(before[i] as string[]));
    }
    // A video that never was is still not found.
    expect((await threadsOf("AAAAAAAAAAA")).status).toBe(404);
  });

  it("answers faults with Google's error bodies and Retry-After on 429", async () => {
    sims = await startSimulators({ platforms: ["youtube"], now: () => NOW });
    sims.world.fail("youtube", { status: 429, retryAfterSeconds: 30 });
    const res = await fetch(`${sims.origin}${SIM_PREFIXES.youtubeApi}/search?part=snippet&q=x&key=${SIM_CREDENTIALS.youtubeApiKey}`);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(((await res.json()) as any).error.errors[0].reason).toBe("rateLimitExceeded");
  });

  it("answers a fault restricted to one video only for that video's requests, with the reason it names", async () => {
    sims = await startSimulators({ platforms: ["youtube"], generate: false, now: () => NOW });
    const hidden = sims.world.publish("youtube", { title: "acme private", text: "x", createdAtMs: NOW - 5_000 });
    const open = sims.world.publish("youtube", { title: "acme public", text: "x", createdAtMs: NOW - 4_000 });
    await get("/search", { part: "snippet", q: "acme" });
    sims.world.fail("youtube", { status: 403, reason: "forbidden", matching: `videoId=${youtubeVideoId(hidden.key)}` });
    expect((await get("/commentThreads", { part: "snippet", videoId: youtubeVideoId(open.key) })).status).toBe(200);
    const refused = await get("/commentThreads", { part: "snippet", videoId: youtubeVideoId(hidden.key) });
    expect(refused.status).toBe(403);
    expect(refused.body.error.errors[0].reason).toBe("forbidden");
    expect((await get("/commentThreads", { part: "snippet", videoId: youtubeVideoId(hidden.key) })).status).toBe(200);
  });

  it("answers Google's 403 rate-limit reasons with Retry-After when told to", async () => {
    sims = await startSimulators({ platforms: ["youtube"], generate: false, now: () => NOW });
    sims.world.fail("youtube", { status: 403, reason: "userRateLimitExceeded", retryAfterSeconds: 45 });
    const res = await fetch(`${sims.origin}${SIM_PREFIXES.youtubeApi}/search?part=snippet&q=x&key=${SIM_CREDENTIALS.youtubeApiKey}`);
    expect(res.status).toBe(403);
    expect(res.headers.get("retry-after")).toBe("45");
    expect(((await res.json()) as any).error.errors[0]).toEqual(expect.objectContaining({ reason: "userRateLimitExceeded", domain: "usageLimits" }));
  });
});
