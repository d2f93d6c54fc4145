import type { Source } from "@earshot/platform/core";
import type { SimPlatform } from "@earshot/simulators";
import { pollerId } from "../store";
import { type IntegrationWorld, openIntegrationWorld } from "../test-support";
import { getSourceHealth } from "./health";
import { Scheduler } from "./scheduler";

// A keyword added or changed after a project's pollers ran is searched at once (its first search) on the
// sources it names, looking back the first-search window, through the real collectors against the
// simulators on a manual clock: no tick waits for the poll interval, and none for the wall clock.

const HOUR = 3_600_000;
const INTERVAL_MS = 300_000;
const SEARCHED: readonly SimPlatform[] = ["x", "reddit", "youtube"];
const NOT_LINKEDIN = ["x", "reddit", "youtube"];

let world: IntegrationWorld;
let scheduler: Scheduler;

beforeEach(async () => {
  world = await openIntegrationWorld({ platforms: SEARCHED, settings: { EARSHOT_POLL_INTERVAL_SECONDS: String(INTERVAL_MS / 1000) } });
  scheduler = new Scheduler(world.deps);
});
afterEach(async () => {
  await scheduler.stop();
  await world.close();
});

const ago = (ms: number) => world.clock.now().getTime() - ms;

/** Posts `text` on every searched platform, `agoMs` before now. */
const publishEverywhere = (text: string, agoMs: number) => {
  for (const platform of SEARCHED) world.sims.world.publish(platform, { title: text, text, createdAtMs: ago(agoMs) });
};

const collectedTexts = async (projectId: string, source?: Source) =>
  (await world.events())
    .filter((e) => e.type === "post.collected" && e.key === projectId)
    .map((e) => e.data as { source: string; text: string })
    .filter((p) => source === undefined || p.source === source)
    .map((p) => `${p.source}: ${p.text}`)
    .sort();

const searchesOf = (platform: SimPlatform, term: string) =>
  world.sims.world.requests(platform).filter((r) => (r.query.query ?? r.query.q ?? "").toLowerCase().includes(term));

const pollerOf = async (projectId: string, source: Source) => (await world.deps.collections.pollers.findById(pollerId(projectId, source)))!;

/** A project collecting from X, Reddit and YouTube whose pollers already ran for "acme". */
const projectThatPolled = async () => {
  const projectId = await world.newProject({ enabledSources: NOT_LINKEDIN });
  await world.addKeyword(projectId, "acme", { sources: NOT_LINKEDIN });
  await scheduler.tick();
  await scheduler.tick();
  world.clock.advance(60_000);
  return projectId;
};

describe("a new keyword's first search", () => {
  it("searches a keyword added after the pollers ran at once on every source it names, looking back 24 h", async () => {
    const projectId = await projectThatPolled();
    publishEverywhere("globex this morning", 20 * HOUR);
    publishEverywhere("globex the day before", 30 * HOUR);
    world.sims.world.publish("reddit", { title: "globex five minutes ago", text: "globex five minutes ago", createdAtMs: ago(5 * 60_000) });
    const addedAt = world.clock.now();
    await world.addKeyword(projectId, "globex", { sources: NOT_LINKEDIN });
    await scheduler.tick();
    expect(world.clock.now()).toEqual(addedAt);
    expect((await collectedTexts(projectId)).filter((t) => t.includes("globex"))).toEqual([
      "reddit: globex five minutes ago",
      "reddit: globex this morning",
      "x: globex this morning",
      "youtube: globex this morning",
    ]);
    const health = Object.fromEntries((await getSourceHealth(world.deps, world.caller({ [projectId]: "viewer" }), projectId)).map((h) => [h.source, h]));
    for (const source of NOT_LINKEDIN) expect(health[source]).toMatchObject({ state: "collecting", firstSearchAt: addedAt });
    expect(health.linkedin?.firstSearchAt).toBeUndefined();
  });

  it("searches the new keyword alone and leaves the regular schedule and the cursors of the other queries as they were", async () => {
    const projectId = await projectThatPolled();
    const before = await Promise.all(NOT_LINKEDIN.map((s) => pollerOf(projectId, s as Source)));
    await world.addKeyword(projectId, "globex", { sources: NOT_LINKEDIN });
    await scheduler.tick();
    expect(searchesOf("x", "globex").map((r) => r.query.query)).toEqual(['("globex") -is:retweet']);
    expect(searchesOf("x", "globex")[0]?.query.start_time).toBeDefined();
    const after = await Promise.all(NOT_LINKEDIN.map((s) => pollerOf(projectId, s as Source)));
    expect(after.map((p) => ({ nextPollAt: p.nextPollAt, cursor: p.cursor }))).toEqual(before.map((p) => ({ nextPollAt: p.nextPollAt, cursor: p.cursor })));

    // The regular poll comes at its time, not before, and asks for both keywords.
    const regular = before[0]!.nextPollAt;
    world.clock.set(new Date(regular.getTime() - 1));
    await scheduler.tick();
    expect(searchesOf("x", "globex")).toHaveLength(1);
    world.clock.set(regular);
    await scheduler.tick();
    expect(searchesOf("x", "globex").map((r) => r.query.query)).toEqual(['("globex") -is:retweet', '("acme" OR "globex") -is:retweet']);
  });

  it("does not find, with the default window, a post older than 24 h", async () => {
    const projectId = await projectThatPolled();
    world.sims.world.publish("x", { text: "globex 23 hours ago", createdAtMs: ago(23 * HOUR) });
    world.sims.world.publish("x", { text: "globex 25 hours ago", createdAtMs: ago(25 * HOUR) });
    await world.addKeyword(projectId, "globex", { sources: ["x"] });
    await scheduler.tick();
    expect(await collectedTexts(projectId, "x")).toEqual(["x: globex 23 hours ago"]);
  });

  it("does not ask a source that is backing off, and searches it once the backoff ends", async () => {
    const projectId = await world.newProject({ enabledSources: ["x", "reddit"] });
    world.sims.world.fail("x", { status: 429, retryAfterSeconds: 900 });
    await world.addKeyword(projectId, "acme", { sources: ["x", "reddit"] });
    await scheduler.tick();
    const reset = (await pollerOf(projectId, "x")).backoffUntil!;
    expect(reset.getTime()).toBeGreaterThan(world.clock.now().getTime());
    world.sims.world.publish("x", { text: "globex this morning", createdAtMs: ago(20 * HOUR) });
    await world.addKeyword(projectId, "globex", { sources: ["x", "reddit"] });
    const asked = world.sims.world.requests("x").length;
    for (let i = 0; i < 5; i++) {
      await scheduler.tick();
      world.clock.advance(60_000);
    }
    expect(world.sims.world.requests("x")).toHaveLength(asked);
    expect(searchesOf("reddit", "globex").length).toBeGreaterThan(0);
    expect((await pollerOf(projectId, "x")).firstSearchAt).toBeUndefined();

    world.clock.set(reset);
    await scheduler.tick();
    await scheduler.tick();
    expect(await collectedTexts(projectId, "x")).toEqual(["x: globex this morning"]);
    expect((await pollerOf(projectId, "x")).firstSearchAt).toEqual(reset);
  });

  it("backs the source off when the provider refuses the first search, keeps the regular poll's time, and tries again after the reset", async () => {
    const projectId = await projectThatPolled();
    const { nextPollAt: regular, firstSearchAt: acmeSearchedAt } = await pollerOf(projectId, "x");
    world.sims.world.publish("x", { text: "globex this morning", createdAtMs: ago(20 * HOUR) });
    world.sims.world.fail("x", { status: 429, retryAfterSeconds: 60, matching: "globex" });
    await world.addKeyword(projectId, "globex", { sources: ["x"] });
    await scheduler.tick();
    const x = await pollerOf(projectId, "x");
    expect(x).toMatchObject({ nextPollAt: regular, lastError: { status: 429 } });
    const reset = x.backoffUntil!;
    expect(reset.getTime() - world.clock.now().getTime()).toBeGreaterThanOrEqual(60_000);
    expect(reset.getTime()).toBeLessThan(regular.getTime());
    expect(x.firstSearchAt).toEqual(acmeSearchedAt);
    world.clock.set(new Date(reset.getTime() - 1));
    await scheduler.tick();
    expect(searchesOf("x", "globex")).toHaveLength(1);
    world.clock.set(reset);
    await scheduler.tick();
    expect(searchesOf("x", "globex")).toHaveLength(2);
    expect(await collectedTexts(projectId, "x")).toEqual(["x: globex this morning"]);
    expect(await pollerOf(projectId, "x")).toMatchObject({ nextPollAt: regular, firstSearchAt: reset });
  });

  it("searches a keyword again when its value, aliases or sources change, not when it is replayed or only its filters change", async () => {
    const projectId = await projectThatPolled();
    const asked = async () => (await world.deps.collections.firstSearches.find({ projectId })).map((r) => r.source).sort();
    const keyword = await world.addKeyword(projectId, "globex", { sources: ["x"] });
    expect(await asked()).toEqual(["x"]);
    await scheduler.tick();
    expect(await asked()).toEqual([]);
    const update = async (more: Record<string, unknown>) => {
      world.clock.advance(1_000);
      await world.keywordEvent("keyword.updated", { ...keyword, ...more, updatedAt: world.clock.now().toISOString() });
      Object.assign(keyword, more);
    };
    await world.keywordEvent("keyword.created", keyword);
    expect(await asked()).toEqual([]);
    await update({ filters: { languages: ["en"] }, excludedTerms: ["spam"] });
    expect(await asked()).toEqual([]);
    await update({ aliases: ["globex corp"] });
    expect(await asked()).toEqual(["x"]);
    await scheduler.tick();
    await update({ sources: ["x", "reddit"] });
    expect(await asked()).toEqual(["reddit"]);
    await scheduler.tick();
    await update({ value: "globex inc" });
    expect(await asked()).toEqual(["reddit", "x"]);
  });
});
