import { KEYWORD_TOPIC } from "../events";
import { createKeyword, deleteKeyword, getKeyword, keywordsInUse, listKeywords, updateKeyword } from "./keywords";
import { createKeywordGroup, listKeywordGroups } from "./groups";
import { keywordInput, type KeywordWorld, openKeywordWorld, refusalOf } from "../test-support";
import type { KeywordFields } from "./keywords";

describe("keywords", () => {
  let world: KeywordWorld;
  let projectId: string;
  beforeEach(async () => {
    world = await openKeywordWorld();
    projectId = await world.newProject();
  });
  afterEach(() => world.close());

  const create = (value: string, more: Record<string, unknown> = {}, caller = world.caller({ [projectId]: "editor" })) =>
    createKeyword(world.deps, caller, keywordInput(projectId, value, more) as KeywordFields & { projectId: string });

  it("creates an active keyword in My brand with phrases tidied, and emits keyword.created with the whole keyword", async () => {
    const k = await create("  Acme   Corp ", { aliases: ["ACME ", "acme\tinc"], excludedTerms: ["acme pie"], filters: { languages: ["en"], allOf: [" launch  day "] } });
    const groups = await listKeywordGroups(world.deps, world.caller({ [projectId]: "viewer" }), { projectId });
    const myBrand = groups.groups.find((g) => g.group.name === "My brand")!;
    expect(k).toMatchObject({ value: "Acme Corp", aliases: ["ACME", "acme inc"], excludedTerms: ["acme pie"], groupId: myBrand.group._id, active: true });
    expect(k.filters).toEqual({ languages: ["en"], allOf: ["launch day"] });
    expect(myBrand.keywordCount).toBe(1);
    const created = (await world.events()).find((e) => e.type === "keyword.created");
    expect(created).toMatchObject({ topic: KEYWORD_TOPIC, key: projectId, subject: k._id });
    expect(created?.data).toMatchObject({ keywordId: k._id, projectId, workspaceId: "wsp_1", value: "Acme Corp", sources: ["x", "reddit"], active: true });
  });

  it("refuses bad fields naming each one", async () => {
    const err = await refusalOf(
      create("", { sources: ["myspace"], aliases: Array.from({ length: 21 }, (_, i) => `a${i}`), filters: { colour: "red", languages: ["english"] }, caseSensitive: "no" }),
    );
    expect(err.code).toBe("validation_failed");
    expect(err.errors.map((e) => e.path).sort()).toEqual(["aliases", "caseSensitive", "filters.colour", "filters.languages.0", "sources.0", "value"].sort());
    expect(err.errors.find((e) => e.path === "filters.colour")?.message).toBe("is not a known field");
  });

  it("refuses a phrase that folds to nothing, which could never match", async () => {
    const err = await refusalOf(create("\u0301\u0301", { aliases: ["ok", "\u0300"] }));
    expect(err.errors).toEqual([
      { path: "value", message: "must contain a letter, digit or symbol" },
      { path: "aliases.1", message: "must contain a letter, digit or symbol" },
    ]);
  });

  it("refuses a groupId that is not a group of the project", async () => {
    const other = await world.newProject();
    const foreign = await createKeywordGroup(world.deps, world.caller({ [other]: "owner" }), { projectId: other, name: "Elsewhere" });
    const err = await refusalOf(create("acme", { groupId: foreign.group._id }));
    expect(err).toMatchObject({ code: "validation_failed", errors: [{ path: "groupId" }] });
  });

  it("answers not_found to a non-member and forbidden to a viewer writing", async () => {
    expect((await refusalOf(create("acme", {}, world.caller({})))).code).toBe("not_found");
    expect((await refusalOf(create("acme", {}, world.caller({ [projectId]: "viewer" })))).code).toBe("forbidden");
    const k = await create("acme");
    const stranger = world.caller({}, { userId: "usr_2", workspaceId: "wsp_2" });
    const missing = await refusalOf(getKeyword(world.deps, stranger, "kw_01JZZZZZZZZZZZZZZZZZZZZZZZ"));
    const hidden = await refusalOf(getKeyword(world.deps, stranger, k._id));
    expect(hidden).toMatchObject({ code: "not_found", message: missing.message });
    expect((await refusalOf(updateKeyword(world.deps, world.caller({ [projectId]: "viewer" }), k._id, { value: "x" }))).code).toBe("forbidden");
  });

  it("refuses a second active keyword with the same folded value, but not another case rule or an exact-case variant", async () => {
    await create("Café");
    const dup = await refusalOf(create("CAFE"));
    expect(dup.code).toBe("conflict");
    await create("Café", { caseSensitive: true });
    await create("CAFÉ", { caseSensitive: true });
    expect((await refusalOf(create("Café", { caseSensitive: true }))).code).toBe("conflict");
  });

  it("deactivates on delete (history kept, idempotent) and reactivates with active: true", async () => {
    const k = await create("acme");
    const gone = await deleteKeyword(world.deps, world.caller({ [projectId]: "editor" }), k._id);
    expect(gone).toMatchObject({ active: false, deactivatedBy: "user" });
    expect(gone.deactivatedAt).toBeInstanceOf(Date);
    const again = await deleteKeyword(world.deps, world.caller({ [projectId]: "editor" }), k._id);
    expect(again._v).toBe(gone._v);
    // The value is free again while the first is inactive.
    const replacement = await create("ACME");
    expect((await refusalOf(updateKeyword(world.deps, world.caller({ [projectId]: "editor" }), k._id, { active: true }))).code).toBe("conflict");
    await deleteKeyword(world.deps, world.caller({ [projectId]: "editor" }), replacement._id);
    const back = await updateKeyword(world.deps, world.caller({ [projectId]: "editor" }), k._id, { active: true });
    expect(back).toMatchObject({ active: true, deactivatedAt: undefined });
    const types = (await world.events()).filter((e) => (e.data as { keywordId?: string }).keywordId === k._id).map((e) => e.type);
    expect(types).toEqual(["keyword.created", "keyword.deactivated", "keyword.updated"]);
  });

  it("refuses the keyword past the workspace's allowance with usage_limited, counting active keywords across projects", async () => {
    const small = (roles: Record<string, "editor">) => world.caller(roles, { allowances: { keywords: 3 } });
    const second = await world.newProject();
    const caller = small({ [projectId]: "editor", [second]: "editor" });
    const a = await createKeyword(world.deps, caller, keywordInput(projectId, "a") as KeywordFields & { projectId: string });
    await createKeyword(world.deps, caller, keywordInput(projectId, "b") as KeywordFields & { projectId: string });
    await createKeyword(world.deps, caller, keywordInput(second, "c") as KeywordFields & { projectId: string });
    const refused = await refusalOf(createKeyword(world.deps, caller, keywordInput(second, "d") as KeywordFields & { projectId: string }));
    expect(refused).toMatchObject({ code: "usage_limited", details: { limit: "keywords", allowance: 3 } });
    expect(await keywordsInUse(world.deps, "wsp_1")).toBe(3);
    await deleteKeyword(world.deps, caller, a._id);
    await createKeyword(world.deps, caller, keywordInput(second, "d") as KeywordFields & { projectId: string });
    expect((await refusalOf(updateKeyword(world.deps, caller, a._id, { active: true }))).code).toBe("usage_limited");
  });

  it("counts a keyword against the project's workspace, not the caller's own", async () => {
    const theirs = await world.newProject("wsp_other");
    const guest = world.caller({ [theirs]: { role: "editor", workspaceId: "wsp_other" } }, { workspaceId: "wsp_1" });
    await createKeyword(world.deps, guest, keywordInput(theirs, "guest") as KeywordFields & { projectId: string });
    expect(await keywordsInUse(world.deps, "wsp_other")).toBe(1);
    expect(await keywordsInUse(world.deps, "wsp_1")).toBe(0);
  });

  it("moves a keyword to another group of the project with groupId and reports the changed fields", async () => {
    const k = await create("acme");
    const rivals = await createKeywordGroup(world.deps, world.caller({ [projectId]: "editor" }), { projectId, name: "Rivals" });
    const moved = await updateKeyword(world.deps, world.caller({ [projectId]: "editor" }), k._id, { groupId: rivals.group._id, sources: ["youtube"] });
    expect(moved).toMatchObject({ groupId: rivals.group._id, sources: ["youtube"] });
    const updated = (await world.events()).filter((e) => e.type === "keyword.updated").at(-1);
    expect((updated?.data as { fields: string[] }).fields.sort()).toEqual(["groupId", "sources"]);
  });

  it("lists newest first with filters by group, active state and source, paging without gaps or repeats", async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      world.clock.advance(1000);
      made.push((await create(`kw ${i}`, { sources: i % 2 === 0 ? ["x"] : ["reddit", "youtube"] }))._id);
    }
    await deleteKeyword(world.deps, world.caller({ [projectId]: "editor" }), made[0]!);
    const viewer = world.caller({ [projectId]: "viewer" });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listKeywords(world.deps, viewer, { projectId, limit: 3, cursor });
      seen.push(...page.items.map((k) => k._id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...made].reverse());
    expect((await listKeywords(world.deps, viewer, { projectId, source: "x" })).items.map((k) => k._id)).toEqual([made[6], made[4], made[2], made[0]]);
    expect((await listKeywords(world.deps, viewer, { projectId, active: false })).items.map((k) => k._id)).toEqual([made[0]]);
    expect((await listKeywords(world.deps, viewer, { projectId, active: true, source: "youtube" })).items).toHaveLength(3);
    expect((await refusalOf(listKeywords(world.deps, viewer, { projectId, cursor: "nope" }))).errors[0]?.path).toBe("cursor");
    expect((await refusalOf(listKeywords(world.deps, viewer, { projectId, source: "myspace" }))).errors[0]?.path).toBe("source");
  });
});
