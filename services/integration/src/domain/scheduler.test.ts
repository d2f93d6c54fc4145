import { INTEGRATION_TOPIC } from "../events";
import { ProviderRateLimited, ProviderUnavailable } from "../collectors/provider-errors";
import { pollerId } from "../store";
import { TestCollector, testPost } from "../collector-test-support";
import { type IntegrationWorld, openIntegrationWorld } from "../test-support";
import { claimPoller, LEASE_MS } from "./poll";
import { Scheduler } from "./scheduler";

// Scheduling around the collectors: which pollers run, when, and that one (project, source) is polled by
// one replica at a time. The collectors here are doubles of our own interface, so each test says exactly
// what a poll finds.

let world: IntegrationWorld;
let x: TestCollector;
let reddit: TestCollector;
const INTERVAL_MS = 60_000;

beforeEach(async () => {
  x = new TestCollector("x");
  reddit = new TestCollector("reddit");
  world = await openIntegrationWorld({
    platforms: ["x"],
    collectors: { x, reddit, youtube: new TestCollector("youtube", false), linkedin: new TestCollector("linkedin", false) },
  });
});
afterEach(async () => {
  await world.close();
});

const collected = async (projectId?: string) =>
  (await world.events()).filter((e) => e.type === "post.collected" && (projectId === undefined || e.key === projectId)).map((e) => e.data as { sourceId: string; source: string });

const pause = (projectId: string) => world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", status: "paused", enabledSources: ["x", "reddit", "youtube", "linkedin"] });
const resume = (projectId: string) => world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", status: "active", enabledSources: ["x", "reddit", "youtube", "linkedin"] });

const projectWithKeyword = async () => {
  const projectId = await world.newProject();
  await world.addKeyword(projectId, "acme");
  return projectId;
};

describe("scheduler", () => {
  it("polls every enabled source of a new project at once and emits what it finds as post.collected", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await projectWithKeyword();
    const post = testPost("x", world.clock.now());
    x.answer({ posts: [post], cursor: { since: post.sourceId }, skipped: 0 });
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(1);
    expect(reddit.pollsOf(projectId)).toHaveLength(1);
    expect(x.pollsOf(projectId)[0]!.keywords.map((k) => k.value)).toEqual(["acme"]);
    const events = (await world.events()).filter((e) => e.type === "post.collected");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ source: "earshot/integration", subject: projectId, key: projectId, topic: INTEGRATION_TOPIC });
    expect(events[0]!.data).toEqual({ ...post, projectId, collectedAt: world.clock.now().toISOString() });
  });

  it("brings polls scheduled under a longer interval in to the current one, and leaves a source backing off alone", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await projectWithKeyword();
    await scheduler.tick();
    const now = world.clock.now().getTime();
    // Scheduled as a 300 s interval would have, before the setting became 60 s; reddit backs off for 10 minutes.
    await world.deps.collections.pollers.updateOne({ _id: pollerId(projectId, "x") }, { $set: { nextPollAt: new Date(now + 300_000) } });
    await world.deps.collections.pollers.updateOne({ _id: pollerId(projectId, "reddit") }, { $set: { nextPollAt: new Date(now + 600_000), backoffUntil: new Date(now + 600_000) } });
    expect(await scheduler.alignToInterval()).toBe(1);
    expect((await world.deps.collections.pollers.findById(pollerId(projectId, "x")))?.nextPollAt).toEqual(new Date(now + INTERVAL_MS));
    expect((await world.deps.collections.pollers.findById(pollerId(projectId, "reddit")))?.nextPollAt).toEqual(new Date(now + 600_000));
    world.clock.advance(INTERVAL_MS);
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(2);
    expect(reddit.pollsOf(projectId)).toHaveLength(1);
  });

  it("starts a new keyword's pollers within one interval", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await world.newProject();
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(0);
    world.clock.advance(1_000);
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(1);
    expect(reddit.pollsOf(projectId)).toHaveLength(0);
  });

  it("runs a keyword's first search once the poll in flight is done, without disturbing that poll", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    await scheduler.tick();
    await scheduler.tick();
    world.clock.advance(INTERVAL_MS);
    const gate = x.hold();
    x.answer({ posts: [], cursor: { sinceId: "7" }, skipped: 0 });
    const ticking = scheduler.tick();
    await gate.entered;
    const globex = await world.addKeyword(projectId, "globex", { sources: ["x"] });
    await scheduler.projectChanged(projectId);
    gate.release();
    await ticking;
    const polled = await world.deps.collections.pollers.findById(pollerId(projectId, "x"));
    expect(polled).toMatchObject({ cursor: { sinceId: "7" }, nextPollAt: new Date(world.clock.now().getTime() + INTERVAL_MS) });
    await scheduler.tick();
    const search = x.pollsOf(projectId).at(-1)!;
    expect(search).toMatchObject({ cursor: undefined, lookbackMs: 24 * 3_600_000 });
    expect(search.keywords.map((k) => k.id)).toEqual([globex.keywordId]);
    expect(await world.deps.collections.pollers.findById(pollerId(projectId, "x"))).toMatchObject({ cursor: { sinceId: "7" }, nextPollAt: polled!.nextPollAt, firstSearchAt: world.clock.now() });
    expect(x.maxConcurrentPerProject).toBe(1);
  });

  it("polls again after one interval, not before, whatever first search ran between", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await projectWithKeyword();
    // The regular polls: a first search is the poll that looks back its own window.
    const regularPolls = () => x.pollsOf(projectId).filter((p) => p.lookbackMs === undefined);
    await scheduler.tick();
    world.clock.advance(INTERVAL_MS - 1);
    await scheduler.tick();
    expect(regularPolls()).toHaveLength(1);
    expect(x.pollsOf(projectId)).toHaveLength(2);
    world.clock.advance(1);
    await scheduler.tick();
    expect(regularPolls()).toHaveLength(2);
  });

  it("starts no poll of a paused project and polls it again once resumed", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await projectWithKeyword();
    await scheduler.tick();
    await pause(projectId);
    world.clock.advance(INTERVAL_MS * 3);
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(1);
    await resume(projectId);
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(2);
  });

  it("aborts a poll in flight when its project is paused, and emits nothing of it", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    const gate = x.hold();
    x.answer({ posts: [testPost("x", world.clock.now())], cursor: { since: "1" }, skipped: 0 });
    const ticking = scheduler.tick();
    const input = await gate.entered;
    await pause(projectId);
    await scheduler.projectChanged(projectId);
    expect(input.signal.aborted).toBe(true);
    gate.release();
    await ticking;
    expect(await collected(projectId)).toEqual([]);
    expect((await world.deps.collections.pollers.findById(pollerId(projectId, "x")))?.cursor).toBeUndefined();
  });

  it("polls again at once when a project paused during a poll is resumed, not after the lease runs out", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    const gate = x.hold();
    const ticking = scheduler.tick();
    await gate.entered;
    await pause(projectId);
    await scheduler.projectChanged(projectId);
    gate.release();
    await ticking;
    world.clock.advance(1_000);
    await resume(projectId);
    await scheduler.projectChanged(projectId);
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(2);
    expect(await world.deps.collections.pollers.findById(pollerId(projectId, "x"))).not.toHaveProperty("leaseOwner");
  });

  it("emits nothing of a poll in flight when another replica handled the pause", async () => {
    const scheduler = new Scheduler(world.deps);
    const other = world.replica();
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    const gate = x.hold();
    x.answer({ posts: [testPost("x", world.clock.now())], cursor: { since: "1" }, skipped: 0 });
    const ticking = scheduler.tick();
    const input = await gate.entered;
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", status: "paused" }, other);
    expect(input.signal.aborted).toBe(false);
    gate.release();
    await ticking;
    expect(await collected(projectId)).toEqual([]);
  });

  it("stops a source's poller when the source leaves the project's enabled sources", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await projectWithKeyword();
    await scheduler.tick();
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", status: "active", enabledSources: ["reddit"] });
    world.clock.advance(INTERVAL_MS);
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(1);
    expect(reddit.pollsOf(projectId)).toHaveLength(2);
  });

  it("never lets two replicas poll one (project, source) at once, and polls each once per interval", async () => {
    const a = new Scheduler(world.deps, { concurrency: 3 });
    const b = new Scheduler(world.replica(), { concurrency: 2 });
    const projects = [await projectWithKeyword(), await projectWithKeyword(), await projectWithKeyword()];
    const rounds = 12;
    for (let i = 0; i < rounds; i++) {
      await Promise.all(i % 2 === 0 ? [a.tick(), b.tick()] : [b.tick(), a.tick()]);
      world.clock.advance(INTERVAL_MS);
    }
    expect(x.maxConcurrentPerProject).toBe(1);
    expect(reddit.maxConcurrentPerProject).toBe(1);
    for (const projectId of projects) {
      expect(x.pollsOf(projectId)).toHaveLength(rounds);
      expect(reddit.pollsOf(projectId)).toHaveLength(rounds);
    }
  });

  it("takes over a lease past its time, and not before", async () => {
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    // A replica claims the poller and dies before polling.
    const dead = world.replica();
    const poller = await world.deps.collections.pollers.findById(pollerId(projectId, "x"));
    expect(await claimPoller(dead, poller!)).not.toBeNull();
    const scheduler = new Scheduler(world.deps);
    world.clock.advance(LEASE_MS - 1);
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(0);
    world.clock.advance(1);
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(1);
  });

  it("continues from the stored cursor after a restart", async () => {
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    x.answer({ posts: [], cursor: { sinceId: "1900" }, skipped: 0 });
    const first = new Scheduler(world.deps);
    await first.tick();
    await first.stop();
    world.clock.advance(INTERVAL_MS);
    await new Scheduler(world.replica()).tick();
    expect(x.pollsOf(projectId).map((p) => p.cursor)).toEqual([undefined, { sinceId: "1900" }]);
  });

  it("keeps polling the other sources when one collector fails, and records the failure", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await projectWithKeyword();
    x.answer(new ProviderUnavailable("x", 503, "down"));
    reddit.answer({ posts: [testPost("reddit", world.clock.now())], cursor: null, skipped: 0 });
    await scheduler.tick();
    expect((await collected(projectId)).map((p) => p.source)).toEqual(["reddit"]);
    const poller = await world.deps.collections.pollers.findById(pollerId(projectId, "x"));
    expect(poller?.lastError).toMatchObject({ status: 503, message: expect.stringContaining("down") });
    expect(poller?.leaseOwner).toBeUndefined();
    world.clock.advance(INTERVAL_MS);
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(2);
  });

  it("backs off a rate-limited poller until the reset and polls it after", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x", "reddit"] });
    const reset = new Date(world.clock.now().getTime() + 10 * INTERVAL_MS);
    x.answer(new ProviderRateLimited("x", reset));
    await scheduler.tick();
    for (let i = 0; i < 9; i++) {
      world.clock.advance(INTERVAL_MS);
      await scheduler.tick();
    }
    expect(x.pollsOf(projectId)).toHaveLength(1);
    expect(reddit.pollsOf(projectId)).toHaveLength(10);
    world.clock.set(reset);
    await scheduler.tick();
    expect(x.pollsOf(projectId)).toHaveLength(2);
  });

  it("does not emit a post found again by a later poll", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    const old = testPost("x", world.clock.now());
    const fresh = testPost("x", world.clock.now());
    x.answer({ posts: [old], cursor: null, skipped: 0 }, { posts: [fresh, old], cursor: null, skipped: 0 });
    await scheduler.tick();
    world.clock.advance(INTERVAL_MS);
    await scheduler.tick();
    expect((await collected(projectId)).map((p) => p.sourceId)).toEqual([old.sourceId, fresh.sourceId]);
  });

  it("abandons a poll that runs too long and records it as the source's last error", async () => {
    const scheduler = new Scheduler(world.deps, { pollTimeoutMs: 1 });
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    // A collector that never answers and never looks at its signal: the poll must end all the same.
    x.answer(() => new Promise(() => undefined));
    await scheduler.tick();
    const poller = await world.deps.collections.pollers.findById(pollerId(projectId, "x"));
    expect(poller?.lastError?.message).toMatch(/took longer/);
    expect(poller?.leaseOwner).toBeUndefined();
    expect(poller?.nextPollAt).toEqual(new Date(world.clock.now().getTime() + INTERVAL_MS));
  });

  it("polls free pollers even when more than a batch of due ones are leased elsewhere", async () => {
    const other = world.replica();
    const leased = [await projectWithKeyword(), await projectWithKeyword()];
    for (const projectId of leased) {
      for (const source of ["x", "reddit"] as const) await claimPoller(other, (await world.deps.collections.pollers.findById(pollerId(projectId, source)))!);
    }
    world.clock.advance(1);
    const free = await projectWithKeyword();
    await new Scheduler(world.deps, { batchSize: 2 }).tick();
    expect(x.pollsOf(free)).toHaveLength(1);
    expect(reddit.pollsOf(free)).toHaveLength(1);
  });

  it("runs ticks on its own timers once started and waits for its polls when stopped", async () => {
    const scheduler = new Scheduler(world.deps);
    const projectId = await world.newProject();
    const gate = x.hold();
    scheduler.start();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    void scheduler.projectChanged(projectId);
    const input = await gate.entered;
    const stopping = scheduler.stop();
    expect(input.signal.aborted).toBe(true);
    gate.release();
    await stopping;
    expect(await collected(projectId)).toEqual([]);
  });
});
