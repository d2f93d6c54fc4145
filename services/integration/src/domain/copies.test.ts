import { pollerId } from "../store";
import { TestCollector } from "../collector-test-support";
import { type IntegrationWorld, openIntegrationWorld } from "../test-support";
import { reconcileProject } from "./pollers";
import { handleKeywordEvents } from "./copies";

// The project and keyword copies kept from events, and the pollers they enable.

let world: IntegrationWorld;

beforeEach(async () => {
  world = await openIntegrationWorld({
    platforms: ["x"],
    collectors: { x: new TestCollector("x"), reddit: new TestCollector("reddit"), youtube: new TestCollector("youtube", false), linkedin: new TestCollector("linkedin") },
  });
});
afterEach(async () => {
  await world.close();
});

const enabledSources = async (projectId: string) =>
  (await world.deps.collections.pollers.find({ projectId, enabled: true })).map((p) => p.source).sort();

describe("replicas", () => {
  it("keeps an archived project archived whatever arrives later, and stops its pollers", async () => {
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme");
    expect(await enabledSources(projectId)).toEqual(["reddit", "x"]);
    await world.projectEvent("project.archived", { projectId, workspaceId: "wsp_1" });
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", status: "active", enabledSources: ["x"] });
    expect((await world.deps.collections.projects.findById(projectId))?.status).toBe("archived");
    expect(await enabledSources(projectId)).toEqual([]);
  });

  it("never lets an older keyword state overwrite a newer one", async () => {
    const projectId = await world.newProject();
    const keyword = await world.addKeyword(projectId, "acme", { updatedAt: "2026-11-01T10:00:00.000Z" });
    await world.keywordEvent("keyword.deactivated", { ...keyword, active: false, updatedAt: "2026-11-01T12:00:00.000Z" });
    await world.keywordEvent("keyword.updated", { ...keyword, value: "acme corp", active: true, updatedAt: "2026-11-01T11:00:00.000Z" });
    expect(await world.deps.collections.keywords.findById(keyword.keywordId)).toMatchObject({ value: "acme", active: false });
    expect(await enabledSources(projectId)).toEqual([]);
  });

  it("applies a batch of keyword events as one by one, a repeat and an older state included, and enables the pollers", async () => {
    const projectId = await world.newProject();
    const base = { projectId, workspaceId: "wsp_1", groupId: "kwg_1", sources: ["x", "reddit"], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false, active: true };
    const event = world.keywordEventOf;
    const a = event("keyword.created", { ...base, keywordId: "kw_a", value: "acme", updatedAt: "2026-11-01T10:00:00.000Z" });
    const b = event("keyword.created", { ...base, keywordId: "kw_b", value: "bolt", updatedAt: "2026-11-01T10:00:00.000Z" });
    const bNewer = event("keyword.deactivated", { ...base, keywordId: "kw_b", value: "bolt", active: false, updatedAt: "2026-11-01T12:00:00.000Z" });
    const bOlder = event("keyword.updated", { ...base, keywordId: "kw_b", value: "bolt corp", updatedAt: "2026-11-01T11:00:00.000Z" });
    await handleKeywordEvents(world.deps, [a, b, bNewer, bOlder, a]);
    await handleKeywordEvents(world.deps, [a, bOlder]);
    expect(await world.deps.collections.keywords.findById("kw_a")).toMatchObject({ value: "acme", active: true });
    expect(await world.deps.collections.keywords.findById("kw_b")).toMatchObject({ value: "bolt", active: false });
    expect(await enabledSources(projectId)).toEqual(["reddit", "x"]);
  });

  it("follows a keyword's newer state: its value, its sources and its deactivation", async () => {
    const projectId = await world.newProject();
    const keyword = await world.addKeyword(projectId, "acme", { updatedAt: "2026-11-01T10:00:00.000Z" });
    await world.keywordEvent("keyword.updated", { ...keyword, value: "acme corp", sources: ["reddit"], updatedAt: "2026-11-01T11:00:00.000Z" });
    expect(await world.deps.collections.keywords.findById(keyword.keywordId)).toMatchObject({ value: "acme corp", sources: ["reddit"], active: true });
    expect(await enabledSources(projectId)).toEqual(["reddit"]);
    await world.keywordEvent("keyword.deactivated", { ...keyword, sources: ["reddit"], updatedAt: "2026-11-01T12:00:00.000Z" });
    expect(await enabledSources(projectId)).toEqual([]);
  });

  it("enables only the project's enabled sources, every source when the event names none", async () => {
    const some = await world.newProject({ enabledSources: ["reddit"] });
    await world.addKeyword(some, "acme");
    expect(await enabledSources(some)).toEqual(["reddit"]);
    const all = await world.newProject({ enabledSources: undefined });
    expect((await world.deps.collections.projects.findById(all))?.enabledSources).toEqual(["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"]);
  });

  it("leaves a source whose collector has no credentials idle", async () => {
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["youtube", "x"] });
    expect(await enabledSources(projectId)).toEqual(["x"]);
    expect(await world.deps.collections.pollers.findById(pollerId(projectId, "youtube"))).toBeNull();
  });

  it("collects from LinkedIn only once a Page of the project's connection is selected", async () => {
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["linkedin"] });
    expect(await enabledSources(projectId)).toEqual([]);
    const now = world.clock.now();
    await world.deps.collections.linkedin.insertOne({
      _id: projectId,
      workspaceId: "wsp_1",
      ownerId: "usr_1",
      status: "connected",
      accessToken: world.deps.sealer.seal("token"),
      pages: [{ organizationUrn: "urn:li:organization:1", name: "Acme" }],
      page: { organizationUrn: "urn:li:organization:1", name: "Acme" },
      updatedAt: now,
    });
    // What the LinkedIn connection does after a Page is selected.
    await reconcileProject(world.deps, projectId);
    expect(await enabledSources(projectId)).toEqual(["linkedin"]);
  });

  it("keeps a disabled poller's cursor and recent ids for when it resumes", async () => {
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme", { sources: ["x"] });
    await world.deps.collections.pollers.updateOne({ _id: pollerId(projectId, "x") }, { $set: { cursor: { sinceId: "7" }, recentIds: ["7"] } });
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", status: "paused" });
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", status: "active" });
    expect(await world.deps.collections.pollers.findById(pollerId(projectId, "x"))).toMatchObject({ enabled: true, cursor: { sinceId: "7" }, recentIds: ["7"] });
  });
});
