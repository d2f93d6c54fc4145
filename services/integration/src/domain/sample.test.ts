import type { Source } from "@earshot/platform/core";
import type { SimPlatform } from "@earshot/simulators";
import { TestCollector } from "../collector-test-support";
import { pollerId } from "../store";
import { type IntegrationWorld, openIntegrationWorld, refusalOf } from "../test-support";
import { type SampleDefinition, sampleSearch } from "./sample";

// preview_keyword's live sample through the real collectors against the simulators: one page of each
// searchable source, matched with the ingestion matcher, nothing emitted, no poller or ledger touched;
// and each way a source can be left out or fail.

const SEARCHED: readonly SimPlatform[] = ["x", "reddit", "youtube"];
const ALL: Source[] = ["x", "reddit", "youtube", "linkedin"];

let world: IntegrationWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const definition = (fields: Partial<SampleDefinition> = {}): SampleDefinition => ({ value: "Quasar", aliases: [], excludedTerms: [], caseSensitive: false, sources: ALL, filters: {}, ...fields });

const bySource = <T extends { source: Source }>(xs: T[]) => Object.fromEntries(xs.map((x) => [x.source, x])) as Record<Source, T>;

describe("sampleSearch", () => {
  it("reads one page per searchable source, keeps what the definition matches, and moves nothing", async () => {
    const w = (world = await openIntegrationWorld({ platforms: SEARCHED }));
    const projectId = await w.newProject();
    const now = w.clock.now().getTime();
    for (const platform of SEARCHED) {
      w.sims.world.publish(platform, { title: "Quasar launch", text: "Quasar launch went well", createdAtMs: now - 60_000 });
      w.sims.world.publish(platform, { title: "Quasar pricing", text: "Quasar pricing is out", createdAtMs: now - 120_000 });
    }
    const ledgerBefore = await w.deps.quota.left("youtube", w.clock.now());

    // allOf is not part of a search query: the matcher alone drops the posts without "launch".
    const samples = bySource(await sampleSearch(w.deps, w.caller({ [projectId]: "viewer" }), projectId, definition({ filters: { allOf: ["launch"] } })));

    for (const source of ["x", "reddit", "youtube"] as const) {
      const s = samples[source];
      expect({ source, status: s.status, reason: s.reason, dropped: s.dropped, matched: s.matched }).toEqual({ source, status: "ok", reason: "", dropped: 1, matched: 1 });
      expect(s.posts.map((p) => p.post.text)).toEqual(["Quasar launch went well"]);
      expect(s.posts[0]!.matches.map((m) => m.term)).toContain("Quasar");
      // One search request: no second page, no YouTube comments.
      const searches = w.sims.world.requests(source).filter((r) => /search/.test(r.path));
      expect(searches).toHaveLength(1);
    }
    expect(w.sims.world.requests("youtube").some((r) => /commentThreads/.test(r.path))).toBe(false);
    expect(samples.linkedin).toMatchObject({ status: "skipped", reason: "not searched by keyword" });

    expect(await w.events()).toEqual([]);
    expect(await w.deps.collections.pollRecords.find({ projectId })).toEqual([]);
    expect((await w.deps.quota.left("youtube", w.clock.now())).left).toBe(ledgerBefore.left);
  });

  it("skips sources the definition does not name or the project does not enable, and says when one has no credentials", async () => {
    const w = (world = await openIntegrationWorld({ platforms: SEARCHED, collectors: { reddit: new TestCollector("reddit", false) } }));
    const projectId = await w.newProject({ enabledSources: ["x", "reddit"] });
    const samples = bySource(await sampleSearch(w.deps, w.caller({ [projectId]: "viewer" }), projectId, definition({ sources: ["reddit", "youtube"] })));
    expect(samples.x).toMatchObject({ status: "skipped", reason: "not a source of the definition" });
    expect(samples.reddit).toMatchObject({ status: "unavailable", reason: "no credentials" });
    expect(samples.youtube).toMatchObject({ status: "skipped", reason: "not enabled for the project" });
    expect(w.sims.world.requests("x")).toEqual([]);
  });

  it("answers a source that does not answer by the deadline as unavailable: timeout, and the others as usual", async () => {
    const slow = new TestCollector("x").answer(
      (input) => new Promise((_, reject) => input.signal.addEventListener("abort", () => reject(new Error("aborted")))),
    );
    const w = (world = await openIntegrationWorld({ platforms: SEARCHED, collectors: { x: slow } }));
    const projectId = await w.newProject();
    const samples = bySource(await sampleSearch(w.deps, w.caller({ [projectId]: "viewer" }), projectId, definition({ sources: ["x", "reddit"] }), { deadlineMs: 200 }));
    expect(samples.x).toMatchObject({ status: "unavailable", reason: "timeout" });
    expect(samples.reddit.status).toBe("ok");
    expect(slow.polls[0]?.sample).toBe(true);
    expect(slow.polls[0]?.cursor).toBeUndefined();
  });

  it("leaves a backing-off source alone and every poller's cursor as it was", async () => {
    const w = (world = await openIntegrationWorld({ platforms: SEARCHED }));
    const projectId = await w.newProject();
    await w.addKeyword(projectId, "acme", { sources: ["x", "reddit"] });
    const reset = new Date(w.clock.now().getTime() + 600_000);
    await w.deps.collections.pollers.updateOne({ _id: pollerId(projectId, "x") }, { $set: { backoffUntil: reset } });
    await w.deps.collections.pollers.updateOne({ _id: pollerId(projectId, "reddit") }, { $set: { cursor: { kept: true } } });
    const before = await w.deps.collections.pollers.find({ projectId });

    const samples = bySource(await sampleSearch(w.deps, w.caller({ [projectId]: "viewer" }), projectId, definition({ sources: ["x", "reddit"] })));

    expect(samples.x).toMatchObject({ status: "unavailable", reason: `rate limited until ${reset.toISOString()}` });
    expect(w.sims.world.requests("x")).toEqual([]);
    expect(samples.reddit.status).toBe("ok");
    expect(await w.deps.collections.pollers.find({ projectId })).toEqual(before);
  });

  it("is not_found for someone not in the project", async () => {
    const w = (world = await openIntegrationWorld({ platforms: SEARCHED }));
    const projectId = await w.newProject();
    expect(await refusalOf(sampleSearch(w.deps, w.caller({}), projectId, definition()))).toMatchObject({ code: "not_found" });
  });
});
