import type { MentionDoc } from "../store";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { getPublicAnalytics, listPublicMentions } from "./public-dashboard";

// A public dashboard's reads: authorized by the share id alone (as project.dashboard_changed left it in
// the replica), answering only what the dashboard shows.

describe("public dashboard reads", () => {
  let world: MentionWorld;
  let projectId: string;
  const shareId = "shareAbc123_";
  const DAY = 24 * 3_600_000;

  beforeEach(async () => {
    world = await openMentionWorld();
    projectId = await world.newProject();
    await world.projectEvent("project.dashboard_changed", { projectId, workspaceId: "wsp_1", shareId, served: true });
    await world.keywordEvent("keyword_group.created", { groupId: "kwg_brand", projectId, workspaceId: "wsp_1", name: "My brand", isDefault: true });
    await world.keywordEvent("keyword_group.created", { groupId: "kwg_rivals", projectId, workspaceId: "wsp_1", name: "Rivals", isDefault: false });
    await world.addKeyword(projectId, "Acme", { keywordId: "kw_acme", groupId: "kwg_brand", excludedTerms: ["acme pie"] });
    await world.addKeyword(projectId, "Globex", { keywordId: "kw_globex", groupId: "kwg_rivals" });
  });
  afterEach(() => world.close());

  const ago = (ms: number) => new Date(world.clock.now().getTime() - ms);
  const seed = (fields: Partial<MentionDoc>) => world.seedMention(projectId, fields);

  it("lists the mentions of the period, newest first, with nothing private: no ids, status, category or history", async () => {
    await seed({ publishedAt: ago(1000), keywordIds: ["kw_acme"], groupIds: ["kwg_brand"], status: "done", categoryId: "cat_secret" });
    await seed({ publishedAt: ago(40 * DAY), keywordIds: ["kw_acme"], groupIds: ["kwg_brand"] });
    const page = await listPublicMentions(world.deps, shareId, {});
    expect(page.items).toHaveLength(1);
    const [m] = page.items;
    expect(m).toEqual({
      source: "x",
      url: expect.any(String),
      text: "Acme launched today",
      author: { handle: "someone", name: "Someone" },
      publishedAt: expect.any(Date),
      matches: [{ term: "Acme", field: "text", start: 0, end: 4 }],
      sentiment: "neutral",
      keywords: ["Acme"],
      moreInStory: 0,
    });
    const text = JSON.stringify(page);
    for (const secret of ["cat_secret", "done", "kw_acme", "kwg_brand", projectId, "acme pie", "wsp_1"]) expect(text).not.toContain(secret);
    expect((await listPublicMentions(world.deps, shareId, { days: 90 })).items).toHaveLength(2);
  });

  it("filters by source and by keyword group name, and pages with a cursor", async () => {
    for (let i = 0; i < 5; i += 1) await seed({ publishedAt: ago(i * 1000 + 1000), source: "reddit", keywordIds: ["kw_globex"], groupIds: ["kwg_rivals"] });
    await seed({ publishedAt: ago(500), keywordIds: ["kw_acme"], groupIds: ["kwg_brand"] });
    expect((await listPublicMentions(world.deps, shareId, { sources: ["x"] })).items.map((m) => m.keywords)).toEqual([["Acme"]]);
    const first = await listPublicMentions(world.deps, shareId, { groupNames: ["Rivals"], limit: 3 });
    expect(first.items).toHaveLength(3);
    const second = await listPublicMentions(world.deps, shareId, { groupNames: ["Rivals"], limit: 3, cursor: first.nextCursor! });
    expect(second.items).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
  });

  it("pages mentions published at one instant without losing or repeating any, its cursor naming no mention", async () => {
    const instant = ago(5000);
    const seeded = [];
    for (let i = 0; i < 7; i += 1) seeded.push(await seed({ publishedAt: instant, text: `Acme tie ${i}` }));
    await seed({ publishedAt: ago(9000), text: "Acme older" });
    const texts: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listPublicMentions(world.deps, shareId, { limit: 3, cursor });
      texts.push(...page.items.map((m) => m.text));
      if (page.nextCursor) for (const m of seeded) expect(Buffer.from(page.nextCursor, "base64url").toString()).not.toContain(m._id);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(texts).toHaveLength(8);
    expect(new Set(texts).size).toBe(8);
    expect(texts[7]).toBe("Acme older");
  });

  it("counts per day by source, per group and keyword by name, and by sentiment, never by status or category", async () => {
    await seed({ publishedAt: ago(1000), source: "reddit", keywordIds: ["kw_globex"], groupIds: ["kwg_rivals"], sentiment: { label: "negative", score: -0.5, method: "lexicon" } });
    await seed({ publishedAt: ago(2 * DAY), keywordIds: ["kw_acme", "kw_globex"], groupIds: ["kwg_brand", "kwg_rivals"] });
    await seed({ publishedAt: ago(3 * DAY), keywordIds: ["kw_acme"], groupIds: ["kwg_brand"], status: "follow_up" });
    const a = await getPublicAnalytics(world.deps, shareId, { days: 7 });
    expect(a.days).toHaveLength(7);
    expect(a.days.reduce((n, d) => n + (d.counts.x ?? 0) + (d.counts.reddit ?? 0), 0)).toBe(3);
    expect(a.bySource).toEqual({ x: 2, reddit: 1 });
    expect(a.byGroup).toEqual([
      { name: "My brand", count: 2 },
      { name: "Rivals", count: 2 },
    ]);
    expect(a.byKeyword).toEqual([
      { name: "Acme", count: 2 },
      { name: "Globex", count: 2 },
    ]);
    expect(a.bySentiment).toEqual({ neutral: 2, negative: 1 });
    expect(a.total).toBe(3);
    expect(a.timezone).toBe("Europe/Paris");
    expect(JSON.stringify(a)).not.toMatch(/follow_up|kw_|kwg_/);
    expect((await getPublicAnalytics(world.deps, shareId, { sources: ["reddit"] })).total).toBe(1);
  });

  it("answers not_found alike for an unknown share id, a dashboard not served and an archived project", async () => {
    expect(await refusalOf(listPublicMentions(world.deps, "nope", {}))).toMatchObject({ code: "not_found" });
    expect(await refusalOf(getPublicAnalytics(world.deps, "", {}))).toMatchObject({ code: "not_found" });
    await world.projectEvent("project.dashboard_changed", { projectId, workspaceId: "wsp_1", shareId, served: false });
    expect(await refusalOf(listPublicMentions(world.deps, shareId, {}))).toMatchObject({ code: "not_found" });
    await world.projectEvent("project.dashboard_changed", { projectId, workspaceId: "wsp_1", shareId, served: true });
    expect((await listPublicMentions(world.deps, shareId, {})).items).toEqual([]);
    await world.projectEvent("project.archived", { projectId, workspaceId: "wsp_1" });
    expect(await refusalOf(getPublicAnalytics(world.deps, shareId, {}))).toMatchObject({ code: "not_found" });
  });

  it("refuses bad filters naming the field: a period out of range, an unknown source or group, a bad cursor", async () => {
    expect(await refusalOf(getPublicAnalytics(world.deps, shareId, { days: 91 }))).toMatchObject({ code: "validation_failed", errors: [{ path: "days" }] });
    expect(await refusalOf(listPublicMentions(world.deps, shareId, { sources: ["myspace"] }))).toMatchObject({ errors: [{ path: "sources.0" }] });
    expect(await refusalOf(listPublicMentions(world.deps, shareId, { groupNames: ["Nope"] }))).toMatchObject({ errors: [{ path: "groupNames.0" }] });
    expect(await refusalOf(listPublicMentions(world.deps, shareId, { cursor: "garbage!" }))).toMatchObject({ code: "validation_failed" });
  });
});
