import { type DigestWorld, openDigestWorld } from "../test-support";
import { sendDigestNow } from "./digests";

// The mentions the digest keeps follow their keywords to another group, as the mention service's do: a
// rule filtering by group counts a moved keyword's mentions, kept before or after the move, in its new group.

describe("kept mentions follow a moved keyword", () => {
  let world: DigestWorld;
  let projectId: string;
  let workspaceId: string;
  beforeEach(async () => {
    world = await openDigestWorld(new Date("2027-02-10T10:00:00Z"));
    workspaceId = (await world.owner()).workspaceId;
    projectId = (await world.project(workspaceId)).projectId;
  });
  afterEach(() => world.close());

  const keyword = (type: string, keywordId: string, groupId: string, fields: string[] = []) =>
    world.event("keyword", type, { keywordId, projectId, workspaceId, groupId, value: keywordId, sources: ["x"], active: true, fields });
  const mention = (keywords: Array<[string, string]>, text: string) =>
    world.mention(projectId, workspaceId, {
      text,
      keywordIds: keywords.map(([k]) => k),
      groupIds: [...new Set(keywords.map(([, g]) => g))],
      keywords: keywords.map(([keywordId, groupId]) => ({ keywordId, value: keywordId, groupId })),
    });
  const groupsOf = async (id: string) => [...((await world.deps.collections.mentions.findById(id))?.groupIds ?? [])].sort();

  it("regroups the kept mentions of a moved keyword, keeping a group another of its keywords is still in", async () => {
    await world.rule(projectId, workspaceId, { name: "Competitors", groupIds: ["kwg_rivals"] });
    await keyword("keyword.created", "kw_globex", "kwg_brand");
    await keyword("keyword.created", "kw_acme", "kwg_brand");
    const alone = await mention([["kw_globex", "kwg_brand"]], "Globex shipped");
    const both = await mention([["kw_globex", "kwg_brand"], ["kw_acme", "kwg_brand"]], "Acme vs Globex");
    await keyword("keyword.updated", "kw_globex", "kwg_rivals", ["groupId"]);
    expect(await groupsOf(alone)).toEqual(["kwg_rivals"]);
    expect(await groupsOf(both)).toEqual(["kwg_brand", "kwg_rivals"]);
    // The rule about Competitors now counts both in its digest.
    world.clock.advance(60_000);
    await sendDigestNow(world.deps, projectId);
    expect(world.sent.map((m) => m.subject)).toContain("[manual send] Competitors for Launch: 2 mentions on 2027-02-10");
  });

  it("keeps a mention whose event arrives after the move in the keyword's new group, and alerts the new group's instant rules", async () => {
    const instant = await world.rule(projectId, workspaceId, { name: "Competitors now", instant: true, digestEnabled: false, groupIds: ["kwg_rivals"] });
    await keyword("keyword.created", "kw_globex", "kwg_brand");
    await keyword("keyword.updated", "kw_globex", "kwg_rivals", ["groupId"]);
    // Collected before the move, its event names the group the keyword was in then.
    const id = await mention([["kw_globex", "kwg_brand"]], "Globex earlier");
    expect(await groupsOf(id)).toEqual(["kwg_rivals"]);
    expect(await world.deps.collections.pending.findById(`${instant}:${id}`)).not.toBeNull();
  });

  it("keeps the groups a mention came with for a keyword it has not heard of", async () => {
    await keyword("keyword.created", "kw_globex", "kwg_brand");
    const id = await mention([["kw_globex", "kwg_brand"], ["kw_old", "kwg_press"]], "Globex and an old keyword");
    await keyword("keyword.updated", "kw_globex", "kwg_rivals", ["groupId"]);
    expect(await groupsOf(id)).toEqual(["kwg_brand", "kwg_press", "kwg_rivals"]);
  });
});
