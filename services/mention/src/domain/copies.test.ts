import { type MentionWorld, openMentionWorld } from "../test-support";
import { ingestPosts } from "./ingest";

describe("replicas of project and keyword events", () => {
  let world: MentionWorld;
  beforeEach(async () => {
    world = await openMentionWorld();
  });
  afterEach(() => world.close());

  const project = (id: string) => world.deps.collections.projects.findById(id);

  it("keeps each project's workspace, status and time zone, and never revives an archived one", async () => {
    const p = await world.newProject("wsp_9");
    expect(await project(p)).toMatchObject({ workspaceId: "wsp_9", status: "active", timezone: "Europe/Paris" });
    await world.projectEvent("project.updated", { projectId: p, workspaceId: "wsp_9", fields: ["digestTimezone"], status: "active", digestTimezone: "America/New_York" });
    expect(await project(p)).toMatchObject({ status: "active", timezone: "America/New_York" });
    await world.projectEvent("project.updated", { projectId: p, workspaceId: "wsp_9", fields: ["status"], status: "paused" });
    expect(await project(p)).toMatchObject({ status: "paused", timezone: "America/New_York" });
    await world.projectEvent("project.archived", { projectId: p, workspaceId: "wsp_9" });
    await world.projectEvent("project.updated", { projectId: p, workspaceId: "wsp_9", fields: ["status"], status: "active" });
    await world.projectEvent("project.created", { projectId: p, workspaceId: "wsp_9", ownerId: "usr_1", name: "Again" });
    expect(await project(p)).toMatchObject({ status: "archived" });
  });

  it("ignores events about other things and events without a project", async () => {
    const p = await world.newProject();
    await world.projectEvent("member.added", { projectId: p, workspaceId: "wsp_1", userId: "usr_2", role: "editor" });
    await world.projectEvent("project.updated", { workspaceId: "wsp_1", status: "paused" });
    await world.keywordEvent("keyword.created", { projectId: p, value: "no id" });
    expect(await project(p)).toMatchObject({ status: "active" });
    expect(await world.deps.collections.keywords.count({})).toBe(0);
  });

  it("keeps the whole keyword, inactive ones too, and moves the project's revision on with each change", async () => {
    const p = await world.newProject();
    const k = await world.addKeyword(p, "Acme", { aliases: ["acme corp"], filters: { languages: ["en"] }, caseSensitive: true, sources: ["x"] });
    expect(await world.deps.collections.keywords.findById(k.keywordId)).toMatchObject({
      projectId: p,
      groupId: k.groupId,
      value: "Acme",
      aliases: ["acme corp"],
      excludedTerms: [],
      filters: { languages: ["en"] },
      caseSensitive: true,
      sources: ["x"],
      active: true,
    });
    await world.keywordEvent("keyword.deactivated", { ...k, active: false });
    expect(await world.deps.collections.keywords.findById(k.keywordId)).toMatchObject({ value: "Acme", active: false });
    expect((await project(p))?.keywordsRevision).toBe(2);
  });

  it("keeps keyword groups with their name and default flag, and forgets deleted ones", async () => {
    const p = await world.newProject();
    await world.keywordEvent("keyword_group.created", { groupId: "kwg_1", projectId: p, workspaceId: "wsp_1", name: "My brand", order: 0, isDefault: true });
    await world.keywordEvent("keyword_group.created", { groupId: "kwg_2", projectId: p, workspaceId: "wsp_1", name: "Press", order: 2 });
    await world.keywordEvent("keyword_group.updated", { groupId: "kwg_2", projectId: p, workspaceId: "wsp_1", name: "Media", order: 2, fields: ["name"] });
    const groups = async () => (await world.deps.collections.groups.find({ projectId: p }, { sort: { _id: 1 } })).map((g) => [g._id, g.name, g.isDefault]);
    expect(await groups()).toEqual([
      ["kwg_1", "My brand", true],
      ["kwg_2", "Media", false],
    ]);
    await world.keywordEvent("keyword_group.deleted", { groupId: "kwg_2", projectId: p, workspaceId: "wsp_1", name: "Media" });
    expect(await groups()).toEqual([["kwg_1", "My brand", true]]);
  });

  it("matches with keywords whose events arrived before the project's own", async () => {
    const p = "prj_01JEARLYKEYWORDS000000001";
    await world.addKeyword(p, "acme");
    await world.projectEvent("project.created", { projectId: p, workspaceId: "wsp_1", ownerId: "usr_1", name: "Late" });
    expect((await ingestPosts(world.deps, [world.post(p, { text: "acme" })])).created).toBe(1);
  });
});
