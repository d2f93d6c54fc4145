import { createKeywordGroup, deleteKeywordGroup, listKeywordGroups, updateKeywordGroup } from "./groups";
import { createKeyword, deleteKeyword, getKeyword, updateKeyword, type KeywordFields } from "./keywords";
import { keywordInput, type KeywordWorld, openKeywordWorld, refusalOf } from "../test-support";

describe("keyword groups", () => {
  let world: KeywordWorld;
  let projectId: string;
  beforeEach(async () => {
    world = await openKeywordWorld();
    projectId = await world.newProject();
  });
  afterEach(() => world.close());

  const editor = () => world.caller({ [projectId]: "editor" });
  const names = async () => (await listKeywordGroups(world.deps, world.caller({ [projectId]: "viewer" }), { projectId, limit: 100 })).groups.map((g) => g.group.name);

  it("gives a new project My brand and Competitors, once, with keyword_group.created events", async () => {
    expect(await names()).toEqual(["My brand", "Competitors"]);
    await world.projectEvent("project.created", { projectId, workspaceId: "wsp_1", ownerId: "usr_1" });
    expect(await names()).toEqual(["My brand", "Competitors"]);
    expect((await world.events()).filter((e) => e.type === "keyword_group.created")).toHaveLength(2);
  });

  it("makes the default groups on first use for a project it never heard of", async () => {
    const older = "prj_01HOLDER0000000000000000A";
    const groups = await listKeywordGroups(world.deps, world.caller({ [older]: "viewer" }), { projectId: older });
    expect(groups.groups.map((g) => [g.group.name, g.group.order, g.group.kind !== "custom"])).toEqual([
      ["My brand", 0, true],
      ["Competitors", 1, true],
    ]);
  });

  it("refuses to rename, reorder or delete a default group", async () => {
    const [myBrand, competitors] = (await listKeywordGroups(world.deps, editor(), { projectId })).groups;
    expect((await refusalOf(updateKeywordGroup(world.deps, editor(), myBrand!.group._id, { name: "Us" }))).code).toBe("conflict");
    expect((await refusalOf(updateKeywordGroup(world.deps, editor(), competitors!.group._id, { order: 5 }))).code).toBe("conflict");
    expect((await refusalOf(deleteKeywordGroup(world.deps, editor(), myBrand!.group._id))).code).toBe("conflict");
    expect(await names()).toEqual(["My brand", "Competitors"]);
  });

  it("appends custom groups, renames and reorders them, and lists by order then creation", async () => {
    const a = await createKeywordGroup(world.deps, editor(), { projectId, name: " Rivals " });
    world.clock.advance(1000);
    const b = await createKeywordGroup(world.deps, editor(), { projectId, name: "Press" });
    expect([a.group.order, b.group.order]).toEqual([2, 3]);
    expect(a.group.name).toBe("Rivals");
    await updateKeywordGroup(world.deps, editor(), b.group._id, { order: 0, name: "Media" });
    expect(await names()).toEqual(["My brand", "Media", "Competitors", "Rivals"]);
    const updated = (await world.events()).filter((e) => e.type === "keyword_group.updated").at(-1);
    expect(updated?.data).toMatchObject({ groupId: b.group._id, name: "Media", order: 0, fields: ["name", "order"] });
  });

  it("refuses a group past the allowance, counting the default groups", async () => {
    const small = world.caller({ [projectId]: "editor" }, { allowances: { keywords: 3 } });
    await createKeywordGroup(world.deps, small, { projectId, name: "Third" });
    expect(await refusalOf(createKeywordGroup(world.deps, small, { projectId, name: "Fourth" }))).toMatchObject({
      code: "usage_limited",
      details: { limit: "keyword_groups", allowance: 3 },
    });
  });

  it("refuses to delete a group with active keywords, then deletes it and moves its inactive keywords to My brand", async () => {
    const rivals = await createKeywordGroup(world.deps, editor(), { projectId, name: "Rivals" });
    const input = (v: string) => keywordInput(projectId, v, { groupId: rivals.group._id }) as KeywordFields & { projectId: string };
    const live = await createKeyword(world.deps, editor(), input("globex"));
    const old = await createKeyword(world.deps, editor(), input("initech"));
    await deleteKeyword(world.deps, editor(), old._id);
    const counted = (await listKeywordGroups(world.deps, editor(), { projectId })).groups.find((g) => g.group._id === rivals.group._id);
    expect([counted?.keywordCount, counted?.inactiveKeywordCount]).toEqual([1, 1]);
    expect(await refusalOf(deleteKeywordGroup(world.deps, editor(), rivals.group._id))).toMatchObject({ code: "conflict", details: { activeKeywords: 1 } });
    const [myBrand] = (await listKeywordGroups(world.deps, editor(), { projectId })).groups;
    await updateKeyword(world.deps, editor(), live._id, { groupId: myBrand!.group._id });
    await deleteKeywordGroup(world.deps, editor(), rivals.group._id);
    expect(await names()).toEqual(["My brand", "Competitors"]);
    expect((await getKeyword(world.deps, editor(), old._id)).groupId).toBe(myBrand!.group._id);
    expect((await world.events()).map((e) => e.type)).toContain("keyword_group.deleted");
  });

  it("answers not_found to someone outside the project and forbidden to a viewer", async () => {
    const rivals = await createKeywordGroup(world.deps, editor(), { projectId, name: "Rivals" });
    const stranger = world.caller({}, { workspaceId: "wsp_2" });
    expect((await refusalOf(updateKeywordGroup(world.deps, stranger, rivals.group._id, { name: "Mine" }))).code).toBe("not_found");
    expect((await refusalOf(listKeywordGroups(world.deps, stranger, { projectId }))).code).toBe("not_found");
    expect((await refusalOf(deleteKeywordGroup(world.deps, world.caller({ [projectId]: "viewer" }), rivals.group._id))).code).toBe("forbidden");
  });
});

describe("deleting a group with many inactive keywords", () => {
  it("moves them to My brand in bounded commits and deletes the group", async () => {
    const world = await openKeywordWorld();
    const projectId = await world.newProject();
    const editor = world.caller({ [projectId]: "editor" }, { allowances: { keywords: 1000 } });
    const group = await createKeywordGroup(world.deps, editor, { projectId, name: "Old" });
    for (let i = 0; i < 450; i++) {
      const k = await createKeyword(world.deps, editor, keywordInput(projectId, `old ${i}`, { groupId: group.group._id }) as KeywordFields & { projectId: string });
      await deleteKeyword(world.deps, editor, k._id);
    }
    const commit = world.store.commit.bind(world.store);
    const sizes: number[] = [];
    world.store.commit = async (writes) => {
      sizes.push(writes.length);
      return commit(writes);
    };
    await deleteKeywordGroup(world.deps, editor, group.group._id);
    world.store.commit = commit;
    expect(Math.max(...sizes)).toBeLessThan(450);
    const [myBrand] = (await listKeywordGroups(world.deps, editor, { projectId })).groups;
    expect(myBrand).toMatchObject({ keywordCount: 0, inactiveKeywordCount: 450 });
    expect(await world.deps.collections.groups.findById(group.group._id)).toBeNull();
    await world.close();
  }, 60_000);
});
