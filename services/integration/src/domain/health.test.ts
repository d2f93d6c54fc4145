import { ProviderRateLimited } from "../collectors/provider-errors";
import { TestCollector, testPost } from "../collector-test-support";
import { type IntegrationWorld, openIntegrationWorld, refusalOf } from "../test-support";
import { getSourceHealth } from "./health";
import { Scheduler } from "./scheduler";

// get_source_health: each source's state and figures, from the pollers and the last day's poll records.

let world: IntegrationWorld;
let x: TestCollector;
let reddit: TestCollector;
const INTERVAL_MS = 60_000;

beforeEach(async () => {
  x = new TestCollector("x");
  reddit = new TestCollector("reddit");
  world = await openIntegrationWorld({
    platforms: ["x"],
    settings: { EARSHOT_YOUTUBE_DAILY_QUOTA: "1000", EARSHOT_SIMULATED_SOURCES: "x,youtube" },
    collectors: { x, reddit, youtube: new TestCollector("youtube"), linkedin: new TestCollector("linkedin", false) },
  });
});
afterEach(async () => {
  await world.close();
});

const healthOf = async (projectId: string) => {
  const sources = await getSourceHealth(world.deps, world.caller({ [projectId]: "viewer" }), projectId);
  return Object.fromEntries(sources.map((s) => [s.source, s]));
};

describe("source health", () => {
  it("reports posts of the last 24 h and the p50/p95 detection lag from their publication times", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x", "reddit"] });
    const now = world.clock.now();
    // Lags 1 s .. 20 s: nearest-rank p50 is 10 s, p95 is 19 s.
    x.answer({ posts: Array.from({ length: 20 }, (_, i) => testPost("x", now, (i + 1) * 1_000)), cursor: null, skipped: 0 });
    await scheduler.tick();
    const health = await healthOf(projectId);
    expect(health.x).toMatchObject({ state: "collecting", postsLast24h: 20, detectionLag: { p50Ms: 10_000, p95Ms: 19_000 }, lastSuccessAt: now, simulated: true });
    expect(health.x!.nextPollAt).toEqual(new Date(now.getTime() + INTERVAL_MS));
    expect(health.reddit).toMatchObject({ state: "collecting", postsLast24h: 0, simulated: false });
    expect(health.reddit!.detectionLag).toBeUndefined();
    world.clock.advance(24 * 3600 * 1000 + 1);
    expect((await healthOf(projectId)).x).toMatchObject({ postsLast24h: 0, detectionLag: undefined });
  });

  it("reports a rate-limited source as backing off with its last error until the reset", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    const reset = new Date(world.clock.now().getTime() + 15 * 60_000);
    x.answer(new ProviderRateLimited("x", reset));
    await scheduler.tick();
    const health = await healthOf(projectId);
    expect(health.x).toMatchObject({ state: "backing_off", backoffUntil: reset, nextPollAt: reset, lastError: { status: 429, at: world.clock.now() } });
    expect(health.x!.lastSuccessAt).toBeUndefined();
  });

  it("reports the YouTube quota left today and idle, stopped sources", async () => {
    const projectId = await world.newProject({ enabledSources: ["x", "youtube", "linkedin"] });
    await world.addKeyword(projectId, "acme", { sources: ["youtube", "linkedin"] });
    await world.deps.quota.take("youtube", 300, world.clock.now());
    let health = await healthOf(projectId);
    expect(Object.keys(health)).toEqual(["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"]);
    expect(health.youtube).toMatchObject({ state: "collecting", quotaLeft: 700 });
    expect(health.x!.state).toBe("idle");
    expect(health.reddit!.state).toBe("idle");
    expect(health.linkedin!.state).toBe("idle");
    // An idle source says why; a collecting one has nothing to say.
    expect(health.x!.notes).toEqual(["Idle: no active keyword on this source."]);
    expect(health.reddit!.notes).toEqual(["Idle: source not enabled for the project."]);
    expect(health.youtube!.notes).toEqual([]);
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", status: "paused" });
    health = await healthOf(projectId);
    expect(Object.values(health).map((h) => h.state)).toEqual(Array(8).fill("stopped"));
    expect(health.x!.notes).toEqual([]);
    expect(health.youtube!.nextPollAt).toBeUndefined();
  });

  it("says GitHub runs at the unauthenticated search limit without a token, and not with one", async () => {
    const projectId = await world.newProject({ enabledSources: ["github"] });
    await world.addKeyword(projectId, "acme", { sources: ["github"] });
    const health = await healthOf(projectId);
    expect(health.github!.notes).toEqual(expect.arrayContaining([expect.stringMatching(/without a token: GitHub allows 10 searches a minute.*EARSHOT_GITHUB_TOKEN/)]));
    const tokened = await openIntegrationWorld({ settings: { EARSHOT_GITHUB_TOKEN: "ghp_test" } });
    try {
      const other = await tokened.newProject({ enabledSources: ["github"] });
      await tokened.addKeyword(other, "acme", { sources: ["github"] });
      const sources = await getSourceHealth(tokened.deps, tokened.caller({ [other]: "viewer" }), other);
      expect(sources.find((s) => s.source === "github")!.notes.join(" ")).not.toMatch(/without a token/);
    } finally {
      await tokened.close();
    }
  });

  it("answers 404 to a non-member and to another project's member, and serves a viewer", async () => {
    const projectId = await world.newProject();
    const other = await world.newProject();
    expect((await refusalOf(getSourceHealth(world.deps, world.caller({}), projectId))).code).toBe("not_found");
    expect((await refusalOf(getSourceHealth(world.deps, world.caller({ [other]: "owner" }), projectId))).code).toBe("not_found");
    expect(await getSourceHealth(world.deps, world.caller({ [projectId]: "viewer" }), projectId)).toHaveLength(8);
  });
});
