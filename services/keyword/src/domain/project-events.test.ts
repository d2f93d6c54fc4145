import { listCollectableKeywords } from "./collectable";
import { createKeyword, getKeyword, keywordsInUse, type KeywordFields } from "./keywords";
import { keywordInput, type KeywordWorld, openKeywordWorld, refusalOf } from "../test-support";

describe("project events", () => {
  let world: KeywordWorld;
  let projectId: string;
  beforeEach(async () => {
    world = await openKeywordWorld();
    projectId = await world.newProject();
  });
  afterEach(() => world.close());

  const editor = () => world.caller({ [projectId]: "editor" });
  const add = (v: string) => createKeyword(world.deps, editor(), keywordInput(projectId, v) as KeywordFields & { projectId: string });
  const collectable = async () => listCollectableKeywords(world.deps, { projectId });

  it("stops collecting a paused project's keywords and resumes when it is active again, keeping them active", async () => {
    const k = await add("acme");
    expect((await collectable()).items.map((x) => x._id)).toEqual([k._id]);
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", fields: ["status"], status: "paused" });
    expect(await collectable()).toEqual({ items: [], nextCursor: null, collecting: false });
    expect((await getKeyword(world.deps, editor(), k._id)).active).toBe(true);
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", fields: ["status"], status: "active" });
    expect((await collectable()).items).toHaveLength(1);
  });

  it("deactivates an archived project's keywords (freeing the allowance, with events) and hides them", async () => {
    const keywords = await Promise.all(Array.from({ length: 3 }, (_, i) => add(`kw ${i}`)));
    expect(await keywordsInUse(world.deps, "wsp_1")).toBe(3);
    await world.projectEvent("project.archived", { projectId, workspaceId: "wsp_1" });
    expect(await keywordsInUse(world.deps, "wsp_1")).toBe(0);
    const deactivated = (await world.events()).filter((e) => e.type === "keyword.deactivated");
    expect(deactivated.map((e) => (e.data as { keywordId: string }).keywordId).sort()).toEqual(keywords.map((k) => k._id).sort());
    expect((await refusalOf(getKeyword(world.deps, editor(), keywords[0]!._id))).code).toBe("not_found");
    expect((await refusalOf(add("late"))).code).toBe("not_found");
    expect((await collectable()).collecting).toBe(false);
  });

  it("keeps an archived project archived when an older event is delivered again", async () => {
    await world.projectEvent("project.archived", { projectId, workspaceId: "wsp_1" });
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", fields: ["status"], status: "active" });
    await world.projectEvent("project.created", { projectId, workspaceId: "wsp_1", ownerId: "usr_1" });
    expect((await collectable()).collecting).toBe(false);
  });

  it("ignores events about other things and events without a project", async () => {
    await world.projectEvent("member.added", { projectId, workspaceId: "wsp_1", userId: "usr_2", role: "editor", memberType: "member" });
    await world.projectEvent("project.updated", { workspaceId: "wsp_1", status: "paused" });
    expect((await collectable()).collecting).toBe(true);
  });
});
