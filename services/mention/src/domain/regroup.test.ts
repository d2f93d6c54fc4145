import { type MentionWorld, openMentionWorld } from "../test-support";
import { getMentionAnalytics } from "./analytics";
import { ingestPosts } from "./ingest";
import { listMentions } from "./mentions";
import { checkProjectGroups } from "./regroup";

// A mention's groups follow its keywords: a keyword moved to another group takes its mentions, old and new,
// with it for every read, as does a deleted group's keywords' move to My brand.

describe("a keyword's mentions follow it to another group", () => {
  let world: MentionWorld;
  let projectId: string;
  const brand = "kwg_brand";
  const rivals = "kwg_rivals";
  const press = "kwg_press";

  beforeEach(async () => {
    world = await openMentionWorld();
    projectId = await world.newProject();
    const group = (groupId: string, name: string, isDefault: boolean) =>
      world.keywordEvent("keyword_group.created", { groupId, projectId, workspaceId: "wsp_1", name, order: 0, isDefault });
    await group(brand, "My brand", true);
    await group(rivals, "Competitors", true);
    await group(press, "Press", false);
  });
  afterEach(() => world.close());

  const viewer = () => world.caller({ [projectId]: "viewer" });
  const listed = async (groupId: string) => (await listMentions(world.deps, viewer(), { projectId, filters: { groupId: [groupId] } })).items.map((m) => m.text).sort();
  const share = async () => (await getMentionAnalytics(world.deps, viewer(), { projectId })).shareOfVoice;
  const ingest = (...texts: string[]) => ingestPosts(world.deps, texts.map((text) => world.post(projectId, { text })));
  /** keyword.updated as the keyword service sends it for a move (the keyword after it, `fields` naming groupId). */
  const move = (keyword: Record<string, unknown>, groupId: string, more: Record<string, unknown> = {}) =>
    world.keywordEvent("keyword.updated", { ...keyword, groupId, fields: ["groupId"], ...more });

  it("lists and counts a moved keyword's earlier and later mentions in its new group", async () => {
    const acme = await world.addKeyword(projectId, "Acme", { groupId: brand });
    const globex = await world.addKeyword(projectId, "Globex", { groupId: brand });
    await ingest("Acme shipped", "Globex shipped", "Globex broke");
    expect(await share()).toEqual({ myBrand: 3, competitors: 0, myBrandShare: 1 });

    await move(globex, rivals);
    await ingest("Globex again");
    expect(await listed(rivals)).toEqual(["Globex again", "Globex broke", "Globex shipped"]);
    expect(await listed(brand)).toEqual(["Acme shipped"]);
    expect(await share()).toEqual({ myBrand: 1, competitors: 3, myBrandShare: 0.25 });
    expect((await world.deps.collections.mentions.find({ keywordIds: acme.keywordId })).map((m) => m.groupIds)).toEqual([[brand]]);
  });

  it("keeps the old group on a mention another of its keywords is still in, and adds the new one", async () => {
    const acme = await world.addKeyword(projectId, "Acme", { groupId: brand });
    await world.addKeyword(projectId, "Acme Cloud", { groupId: brand });
    await ingest("Acme Cloud is down", "Acme is up");
    await move(acme, press);
    const groupsOf = async (text: string) => (await world.deps.collections.mentions.findOne({ projectId, text }))?.groupIds.sort();
    expect(await groupsOf("Acme Cloud is down")).toEqual([brand, press].sort());
    expect(await groupsOf("Acme is up")).toEqual([press]);
  });

  it("moves an inactive keyword's mentions too, and a repeated or replayed move changes nothing more", async () => {
    const acme = await world.addKeyword(projectId, "Acme", { groupId: brand });
    await ingest("Acme one", "Acme two");
    await world.keywordEvent("keyword.deactivated", { ...acme, active: false, fields: ["active"] });
    await move(acme, press, { active: false });
    expect(await listed(press)).toEqual(["Acme one", "Acme two"]);
    const versions = async () => (await world.deps.collections.mentions.find({ projectId }, { sort: { _id: 1 } })).map((m) => m._v);
    const before = await versions();
    await move(acme, press, { active: false });
    expect(await versions()).toEqual(before);
    expect(await listed(brand)).toEqual([]);
  });

  it("takes a deleted group off its mentions once the keyword service moved its keywords to My brand", async () => {
    const old = await world.addKeyword(projectId, "Initech", { groupId: press });
    await ingest("Initech news");
    await world.keywordEvent("keyword.deactivated", { ...old, groupId: press, active: false, fields: ["active"] });
    // Deleting the group: its inactive keywords move to My brand, then the group goes (one commit, in order).
    await move(old, brand, { active: false });
    await world.keywordEvent("keyword_group.deleted", { groupId: press, projectId, workspaceId: "wsp_1", name: "Press" });
    expect(await listed(brand)).toEqual(["Initech news"]);
    expect(await listed(press)).toEqual([]);
  });

  it("drops a deleted group from mentions even when no move reached this service for its keyword", async () => {
    await world.seedMention(projectId, { text: "Legacy", keywordIds: ["kw_gone"], groupIds: [press, brand] });
    await world.keywordEvent("keyword_group.deleted", { groupId: press, projectId, workspaceId: "wsp_1", name: "Press" });
    expect((await world.deps.collections.mentions.findOne({ text: "Legacy" }))?.groupIds).toEqual([brand]);
  });

  it("regroups mentions stored just after a move that their matcher had not seen", async () => {
    const globex = await world.addKeyword(projectId, "Globex", { groupId: brand });
    await ingest("Globex warm-up");
    // A second process whose commit of new mentions comes right after another process handled a move:
    // it matched with the groups before the move, and the move's regroup ran before its mentions existed.
    let moveFirst: (() => Promise<void>) | undefined = () => move(globex, rivals);
    const { store } = world;
    const late = world.replica({
      kind: store.kind,
      collection: (name) => store.collection(name),
      close: () => store.close(),
      commit: async (writes) => {
        const hook = moveFirst;
        moveFirst = undefined;
        if (hook) await hook();
        return store.commit(writes);
      },
    });
    expect((await ingestPosts(late, [world.post(projectId, { text: "Globex late" })])).created).toBe(1);
    expect(moveFirst).toBeUndefined();
    expect(await listed(rivals)).toEqual(["Globex late", "Globex warm-up"]);
    expect(await listed(brand)).toEqual([]);
  });

  it("regroups, once, the mentions stored before groups followed keywords", async () => {
    const globex = await world.addKeyword(projectId, "Globex", { groupId: rivals });
    const stale = await world.seedMention(projectId, { text: "Globex of old", keywordIds: [globex.keywordId], groupIds: [brand] });
    expect(await checkProjectGroups(world.deps, () => true)).toEqual({ projects: 0, mentions: 0 });
    expect(await checkProjectGroups(world.deps)).toEqual({ projects: 1, mentions: 1 });
    expect((await world.deps.collections.mentions.findById(stale._id))?.groupIds).toEqual([rivals]);
    await world.deps.collections.mentions.updateOne({ _id: stale._id }, { $set: { groupIds: [brand] } });
    expect(await checkProjectGroups(world.deps)).toEqual({ projects: 0, mentions: 0 });
  });
});
