import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { runWithCaller } from "@earshot/platform";
import { commonV1 } from "@earshot/proto";
import { parse } from "csv-parse/sync";
import { testCaller } from "../../../platform/src/testing/caller";
import { strictAjv } from "./contract";
import { type Actor, type ApiResponse, type Harness, startHarness } from "./harness";
import { createKeyword, createProject, ingestPosts, keywordWithMentions, listAllMentions, type MentionData, postFor, type SourceWord } from "./world";

// Mentions over the API beyond what every operation is tested for (operations.test.ts): each list filter
// alone and combined, cursor paging while mentions arrive, saved views, deleting a category, triage
// history, the streamed export against the paged list in both formats, analytics, usage, and the MCP tools.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const dataOf = <T>(res: ApiResponse): T => {
  if (res.status >= 300) throw new Error(`expected a success, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data as T;
};

const idsOf = (mentions: Array<{ id: string }>) => mentions.map((m) => m.id);

/** Words as the q filter compares them: lower case, accents removed, split on anything not a letter or digit. */
const foldedWords = (text: string) =>
  new Set(
    text
      .normalize("NFD")
      .replace(/\p{M}/gu, "")
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean),
  );

const HOUR = 3_600_000;

interface GroupIds {
  myBrand: string;
  competitors: string;
}

const defaultGroups = async (actor: Actor, projectId: string): Promise<GroupIds> => {
  const groups = dataOf<Array<{ id: string; name: string; isDefault: boolean }>>(await h.call("list_keyword_groups", { projectId, limit: 100 }, actor.key));
  return { myBrand: groups.find((g) => g.name === "My brand")!.id, competitors: groups.find((g) => g.name === "Competitors")!.id };
};

const createCategory = async (actor: Actor, projectId: string, name: string) =>
  dataOf<{ id: string }>(await h.call("create_category", { projectId, name }, actor.key)).id;

describe("list_mentions filters", () => {
  const SOURCES: SourceWord[] = ["x", "reddit", "youtube", "linkedin"];
  const MOODS = ["love it, great and excellent", "terrible, awful, I hate it", "released on Tuesday", "shipping update"];
  let owner: Actor;
  let editor: Actor;
  let projectId: string;
  let brand: string;
  let rival: string;
  let third: string;
  let groups: GroupIds;
  let questions: string;
  let praise: string;
  let all: MentionData[];
  let now: number;

  beforeAll(async () => {
    owner = await h.newActor();
    projectId = await createProject(h, owner);
    editor = await h.addMember(owner, projectId, "editor");
    groups = await defaultGroups(owner, projectId);
    // Listening on every source, so posts from all four become mentions.
    const everywhere = { sources: SOURCES };
    brand = (await createKeyword(h, owner, projectId, { value: "Zephyrix", ...everywhere })).id;
    rival = (await createKeyword(h, owner, projectId, { value: "Quorvane", groupId: groups.competitors, ...everywhere })).id;
    third = (await createKeyword(h, owner, projectId, { value: "Lumenfold", ...everywhere })).id;
    now = Date.now();
    await ingestPosts(
      h,
      Array.from({ length: 24 }, (_, i) => {
        const named = i % 3 === 0 ? "Zephyrix versus Quorvane" : i % 3 === 1 ? "Zephyrix news" : "Quorvane news";
        const source = SOURCES[Math.floor(i / 2) % 4]!;
        return postFor(projectId, {
          text: `${named}${i % 8 === 0 ? " and Lumenfold" : ""}: ${MOODS[i % 4]}${i % 6 === 0 ? " pelican" : ""}`,
          ...(source === "reddit" ? { title: `Harbour thread ${i}` } : {}),
          source,
          author: { handle: `writer${i % 5}`, id: `uid-writer${i % 5}` },
          publishedAt: new Date(now - (i + 1) * HOUR),
        });
      }),
    );
    const ingested = await listAllMentions(h, owner, projectId);
    expect(ingested).toHaveLength(24);
    questions = await createCategory(owner, projectId, "Questions");
    praise = await createCategory(owner, projectId, "Praise");
    // Newest first: index i is the post published i + 1 hours ago.
    for (const [i, m] of ingested.entries()) {
      if (i % 3 === 1) expect((await h.call("update_mention_status", { mentionId: m.id, status: "done" }, editor.key)).status).toBe(200);
      if (i % 5 === 2) expect((await h.call("update_mention_status", { mentionId: m.id, status: "follow_up" }, editor.key)).status).toBe(200);
      const category = i % 6 < 2 ? questions : i % 6 === 2 ? praise : null;
      if (category) expect((await h.call("categorize_mention", { mentionId: m.id, categoryId: category }, editor.key)).status).toBe(200);
    }
    all = await listAllMentions(h, owner, projectId);
  }, 120_000);

  it("lists newest published first and scores the lexicon's clear cases", () => {
    const published = all.map((m) => Date.parse(m.publishedAt));
    expect(published).toEqual([...published].sort((a, b) => b - a));
    const labels = new Set(all.map((m) => m.sentiment.label));
    expect(labels).toEqual(new Set(["positive", "negative", "neutral"]));
    for (const m of all) expect(m.sentiment.method).toBe("lexicon");
  });

  const cases: Array<[string, () => Record<string, unknown>, (m: MentionData) => boolean]> = [
    ["status", () => ({ status: ["done"] }), (m) => m.status === "done"],
    ["status, two values", () => ({ status: ["open", "follow_up"] }), (m) => m.status !== "done"],
    ["keywordId", () => ({ keywordId: [rival] }), (m) => m.keywordIds.includes(rival)],
    ["keywordId, two values", () => ({ keywordId: [third, rival] }), (m) => m.keywordIds.includes(third) || m.keywordIds.includes(rival)],
    ["groupId", () => ({ groupId: [groups.myBrand] }), (m) => m.groupIds.includes(groups.myBrand)],
    ["source", () => ({ source: ["reddit"] }), (m) => m.source === "reddit"],
    ["source, two values", () => ({ source: ["x", "youtube"] }), (m) => m.source === "x" || m.source === "youtube"],
    ["categoryId", () => ({ categoryId: [questions] }), (m) => m.categoryId === questions],
    ["categoryId none", () => ({ categoryId: ["none"] }), (m) => m.categoryId === null],
    ["categoryId and none", () => ({ categoryId: [praise, "none"] }), (m) => m.categoryId === praise || m.categoryId === null],
    ["sentiment", () => ({ sentiment: ["negative"] }), (m) => m.sentiment.label === "negative"],
    ["q in the text, case and accents aside", () => ({ q: "PÉLICAN" }), (m) => foldedWords(m.text).has("pelican")],
    ["q in the title", () => ({ q: "harbour" }), (m) => foldedWords(m.title ?? "").has("harbour")],
    ["q, every word", () => ({ q: "pelican excellent" }), (m) => foldedWords(m.text).has("pelican") && foldedWords(m.text).has("excellent")],
    ["author handle", () => ({ author: "writer2" }), (m) => m.author.handle === "writer2"],
    ["author handle with @", () => ({ author: "@writer3" }), (m) => m.author.handle === "writer3"],
    ["author id", () => ({ author: "uid-writer4" }), (m) => m.author.id === "uid-writer4"],
    [
      "since and until",
      () => ({ since: new Date(now - 15.5 * HOUR).toISOString(), until: new Date(now - 5.5 * HOUR).toISOString() }),
      (m) => Date.parse(m.publishedAt) >= now - 15.5 * HOUR && Date.parse(m.publishedAt) < now - 5.5 * HOUR,
    ],
    [
      "status, source and keywordId together",
      () => ({ status: ["open"], source: ["x", "reddit"], keywordId: [brand] }),
      (m) => m.status === "open" && (m.source === "x" || m.source === "reddit") && m.keywordIds.includes(brand),
    ],
    [
      "sentiment, uncategorized and since together",
      () => ({ sentiment: ["positive", "neutral"], categoryId: ["none"], since: new Date(now - 12.5 * HOUR).toISOString() }),
      (m) => m.sentiment.label !== "negative" && m.categoryId === null && Date.parse(m.publishedAt) >= now - 12.5 * HOUR,
    ],
    ["q and author together", () => ({ q: "news", author: "writer1" }), (m) => foldedWords(m.text).has("news") && m.author.handle === "writer1"],
  ];

  it.each(cases)("filters by %s", async (_name, filters, keep) => {
    const expected = idsOf(all.filter(keep));
    // Each case keeps some mentions and drops others, so it shows the filter at work.
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all.length);
    expect(idsOf(await listAllMentions(h, owner, projectId, filters()))).toEqual(expected);
  });

  it("reads a REST list parameter repeated or comma-separated alike, and names a bad member by its index", async () => {
    const base = `/api/v1/mentions?projectId=${projectId}&limit=100`;
    const commas = await h.api("GET", `${base}&status=open,follow_up&source=x,reddit`, { key: owner.key });
    const repeated = await h.api("GET", `${base}&status=open&status=follow_up&source=x&source=reddit`, { key: owner.key });
    const mixed = await h.api("GET", `${base}&status=open,follow_up&source=x&source=reddit`, { key: owner.key });
    const expected = idsOf(all.filter((m) => m.status !== "done" && (m.source === "x" || m.source === "reddit")));
    for (const res of [commas, repeated, mixed]) expect(idsOf(dataOf<MentionData[]>(res))).toEqual(expected);

    for (const query of ["status=open,closed", "status=open&status=closed"]) {
      const bad = await h.api("GET", `${base}&${query}`, { key: owner.key });
      expect({ query, status: bad.status, paths: bad.body.errors?.map((e) => e.path) }).toEqual({ query, status: 400, paths: ["status.1"] });
    }
    const single = await h.api("GET", `${base}&limit=1&limit=2`, { key: owner.key });
    expect(dataOf<unknown[]>(single)).toHaveLength(2);
  });

  it("refuses until before since, naming until", async () => {
    const res = await h.call("list_mentions", { projectId, since: new Date(now).toISOString(), until: new Date(now - HOUR).toISOString() }, owner.key);
    expect(res.status).toBe(400);
    expect(res.body.errors?.map((e) => e.path)).toEqual(["until"]);
  });

  describe("a saved view", () => {
    it("applies its filters, and a filter given beside it replaces the view's member of that name", async () => {
      const view = dataOf<{ id: string }>(
        await h.call("create_mention_view", { projectId, name: "Triaged elsewhere", filters: { status: ["done"], source: ["x", "reddit"] } }, editor.key),
      );
      const applied = await listAllMentions(h, owner, projectId, { viewId: view.id });
      expect(idsOf(applied)).toEqual(idsOf(all.filter((m) => m.status === "done" && (m.source === "x" || m.source === "reddit"))));
      const overridden = await listAllMentions(h, owner, projectId, { viewId: view.id, status: ["open"] });
      expect(idsOf(overridden)).toEqual(idsOf(all.filter((m) => m.status === "open" && (m.source === "x" || m.source === "reddit"))));
      expect(overridden.length).toBeGreaterThan(0);
    });

    it("refuses filters whose until is not after since, naming filters.until", async () => {
      const res = await h.call(
        "create_mention_view",
        { projectId, name: "Backwards", filters: { since: new Date(now).toISOString(), until: new Date(now - HOUR).toISOString() } },
        editor.key,
      );
      expect(res.status).toBe(400);
      expect(res.body.errors?.map((e) => e.path)).toEqual(["filters.until"]);
    });

    it("refuses a view of another project with 400 naming viewId", async () => {
      const other = await createProject(h, owner);
      const view = dataOf<{ id: string }>(await h.call("create_mention_view", { projectId: other, name: "Elsewhere", filters: {} }, owner.key));
      const res = await h.call("list_mentions", { projectId, viewId: view.id }, owner.key);
      expect(res.status).toBe(400);
      expect(res.body.errors?.map((e) => e.path)).toEqual(["viewId"]);
    });
  });

  describe("analytics", () => {
    type Analytics = {
      buckets: Array<{ start: string; counts: Record<string, number> }>;
      totals: Record<string, number>;
      total: number;
      shareOfVoice: { myBrand: number; competitors: number; myBrandShare: number };
      interval: string;
      groupBy: string | null;
    };
    const period = () => ({ since: new Date(now - 30 * HOUR).toISOString(), until: new Date(now).toISOString() });
    const analytics = async (input: Record<string, unknown>) => dataOf<Analytics>(await h.call("get_mention_analytics", { projectId, ...period(), ...input }, owner.key));
    const countBy = (key: (m: MentionData) => string) => all.reduce<Record<string, number>>((acc, m) => ({ ...acc, [key(m)]: (acc[key(m)] ?? 0) + 1 }), {});

    it("counts by source in hourly buckets whose counts add up to the totals, with share of voice", async () => {
      const a = await analytics({ interval: "hour", groupBy: "source" });
      expect(a).toMatchObject({ interval: "hour", groupBy: "source", total: all.length, totals: countBy((m) => m.source) });
      const starts = a.buckets.map((b) => Date.parse(b.start));
      expect(starts).toEqual([...starts].sort((x, y) => x - y));
      expect(a.buckets.length).toBeGreaterThanOrEqual(30);
      const summed: Record<string, number> = {};
      for (const b of a.buckets) for (const [k, n] of Object.entries(b.counts)) summed[k] = (summed[k] ?? 0) + n;
      expect(summed).toEqual(a.totals);
      const myBrand = all.filter((m) => m.groupIds.includes(groups.myBrand)).length;
      const competitors = all.filter((m) => m.groupIds.includes(groups.competitors)).length;
      expect(a.shareOfVoice).toEqual({ myBrand, competitors, myBrandShare: expect.closeTo(myBrand / (myBrand + competitors), 6) });
    });

    it("counts by status, sentiment and keyword, and applies the list filters", async () => {
      expect((await analytics({ groupBy: "status" })).totals).toEqual(countBy((m) => m.status));
      expect((await analytics({ groupBy: "sentiment" })).totals).toEqual(countBy((m) => m.sentiment.label));
      const byKeyword = await analytics({ groupBy: "keyword" });
      // A mention of both keywords counts once in the total and once under each keyword.
      expect(byKeyword.total).toBe(all.length);
      expect(byKeyword.totals).toEqual(
        Object.fromEntries([brand, rival, third].map((k) => [k, all.filter((m) => m.keywordIds.includes(k)).length])),
      );
      const done = await analytics({ status: ["done"], source: ["x", "youtube"] });
      expect(done.total).toBe(all.filter((m) => m.status === "done" && (m.source === "x" || m.source === "youtube")).length);
      expect(done.groupBy).toBeNull();
    });

    it("refuses until before since, naming until", async () => {
      const res = await h.call("get_mention_analytics", { projectId, since: new Date(now).toISOString(), until: new Date(now - HOUR).toISOString() }, owner.key);
      expect(res.status).toBe(400);
      expect(res.body.errors?.map((e) => e.path)).toEqual(["until"]);
    });
  });
});

describe("paging", () => {
  it("pages through 1,050 mentions with mentions arriving between pages: none twice, none skipped, newest first", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    await createKeyword(h, owner, projectId, { value: "Pagewise" });
    const start = Date.now() - 1_000_000_000;
    await ingestPosts(h, Array.from({ length: 1050 }, (_, i) => postFor(projectId, { text: `Pagewise item ${i}`, publishedAt: new Date(start - i * 1000) })));
    const before = idsOf(await listAllMentions(h, owner, projectId));
    expect(before).toHaveLength(1050);

    const seen: MentionData[] = [];
    const older: string[] = [];
    const newer: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      const res = await h.call("list_mentions", { projectId, limit: 100, ...(cursor ? { cursor } : {}) }, owner.key);
      seen.push(...dataOf<MentionData[]>(res));
      cursor = (res.body.meta as { nextCursor: string | null }).nextCursor ?? undefined;
      if (!cursor) break;
      // One newer than everything (before the cursor: it must not show up) and one older than
      // everything (after the cursor: it must).
      const [young, old] = [
        postFor(projectId, { text: `Pagewise late arrival ${page}`, publishedAt: new Date(start + (page + 1) * 60_000) }),
        postFor(projectId, { text: `Pagewise late old ${page}`, publishedAt: new Date(start - 2_000_000 - page * 1000) }),
      ];
      await ingestPosts(h, [young, old]);
      newer.push(young.sourceId);
      older.push(old.sourceId);
    }
    const idOf = new Map((await listAllMentions(h, owner, projectId)).map((m) => [m.sourceId, m.id]));
    const ids = idsOf(seen);
    expect(older.length).toBeGreaterThanOrEqual(10);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [...before, ...older.map((s) => idOf.get(s)!)]) expect(ids).toContain(id);
    for (const id of newer.map((s) => idOf.get(s)!)) expect(ids).not.toContain(id);
    const order = seen.map((m) => [Date.parse(m.publishedAt), m.id] as const);
    const sorted = [...order].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1));
    expect(order).toEqual(sorted);
  }, 180_000);
});

describe("triage", () => {
  let owner: Actor;
  let editor: Actor;
  let projectId: string;
  let mentions: MentionData[];
  beforeAll(async () => {
    owner = await h.newActor();
    projectId = await createProject(h, owner);
    editor = await h.addMember(owner, projectId, "editor");
    ({ mentions } = await keywordWithMentions(h, owner, projectId, 3));
  });

  it("keeps who changed a mention's status or category, from what to what and when, in get_mention only", async () => {
    const [mention] = mentions;
    const category = await createCategory(owner, projectId, "Bugs");
    expect((await h.call("update_mention_status", { mentionId: mention!.id, status: "done" }, editor.key)).status).toBe(200);
    expect((await h.call("categorize_mention", { mentionId: mention!.id, categoryId: category }, owner.key)).status).toBe(200);
    expect((await h.call("categorize_mention", { mentionId: mention!.id, categoryId: null }, editor.key)).status).toBe(200);
    const got = dataOf<MentionData & { history: Array<{ field: string; from: string | null; to: string | null; byUserId: string; at: string }> }>(
      await h.call("get_mention", { mentionId: mention!.id }, owner.key),
    );
    expect(got).toMatchObject({ status: "done", categoryId: null });
    expect(got.history).toEqual([
      { field: "status", from: "open", to: "done", byUserId: editor.userId, at: expect.any(String) },
      { field: "categoryId", from: null, to: category, byUserId: owner.userId, at: expect.any(String) },
      { field: "categoryId", from: category, to: null, byUserId: editor.userId, at: expect.any(String) },
    ]);
    const times = got.history.map((c) => Date.parse(c.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const listed = (await listAllMentions(h, owner, projectId)).find((m) => m.id === mention!.id);
    expect(listed).toMatchObject({ status: "done" });
    expect(listed).not.toHaveProperty("history");
  });

  it("makes a deleted category's mentions uncategorized at once, in get_mention and in lists", async () => {
    const category = await createCategory(owner, projectId, "Short-lived");
    for (const m of mentions.slice(0, 2)) expect((await h.call("categorize_mention", { mentionId: m.id, categoryId: category }, editor.key)).status).toBe(200);
    expect(idsOf(await listAllMentions(h, owner, projectId, { categoryId: [category] })).sort()).toEqual(idsOf(mentions.slice(0, 2)).sort());

    expect((await h.call("delete_category", { categoryId: category }, editor.key)).status).toBe(200);
    for (const m of mentions.slice(0, 2)) {
      expect(dataOf<MentionData>(await h.call("get_mention", { mentionId: m.id }, owner.key)).categoryId).toBeNull();
    }
    const uncategorized = idsOf(await listAllMentions(h, owner, projectId, { categoryId: ["none"] }));
    for (const m of mentions) expect(uncategorized).toContain(m.id);
    const categories = dataOf<Array<{ id: string }>>(await h.call("list_categories", { projectId }, owner.key));
    expect(idsOf(categories)).not.toContain(category);
    // The mentions themselves are kept.
    expect(await listAllMentions(h, owner, projectId)).toHaveLength(mentions.length);
  });
});

describe("export_mentions", () => {
  let owner: Actor;
  let projectId: string;
  const COLUMNS = [
    "id",
    "projectId",
    "source",
    "sourceId",
    "url",
    "publishedAt",
    "authorHandle",
    "authorName",
    "title",
    "text",
    "status",
    "categoryId",
    "categoryName",
    "sentiment",
    "keywordIds",
    "keywordNames",
    "groupIds",
    "groupNames",
    "matchedAt",
    "relevanceScore",
    "relevanceLabel",
    "relevanceReasons",
    "storyId",
    "storySize",
  ];
  const relevanceAndStoryCells = (m: MentionData): string[] => {
    const { relevance, story } = m as MentionData & { relevance: { score: number; label: string; reasons: Array<{ feature: string }> } | null; story: { id: string; size: number } | null };
    return [relevance ? String(relevance.score) : "", relevance?.label ?? "", relevance ? relevance.reasons.map((r) => r.feature).join(";") : "", story?.id ?? "", story ? String(story.size) : ""];
  };
  // Names by id, as the project's lists give them.
  const names = new Map<string, string>();
  // Texts that CSV must quote, and one a spreadsheet would run as a formula.
  const AWKWARD = ['Exportly said "hi", then left', "Exportly on\ntwo lines\r\nand more", "=HYPERLINK(\"http://evil\") Exportly", "@channel Exportly, -minus +plus"];

  beforeAll(async () => {
    owner = await h.newActor();
    projectId = await createProject(h, owner);
    const groups = await defaultGroups(owner, projectId);
    names.set(groups.myBrand, "My brand").set(groups.competitors, "Competitors");
    names.set((await createKeyword(h, owner, projectId, { value: "Exportly" })).id, "Exportly");
    // Matches the awkward posts' titles, in the other group: those rows name two keywords and two groups.
    names.set((await createKeyword(h, owner, projectId, { value: "quoted", groupId: groups.competitors })).id, "quoted");
    const sources: SourceWord[] = ["x", "reddit"];
    await ingestPosts(h, [
      ...AWKWARD.map((text) => postFor(projectId, { text, title: "A, \"quoted\" title" })),
      ...Array.from({ length: 1100 }, (_, i) => postFor(projectId, { text: `Exportly item ${i} ${"lorem ipsum ".repeat(20)}`, source: sources[i % 2]! })),
    ]);
    const awkward = await listAllMentions(h, owner, projectId, { q: "quoted" });
    // A category whose name a spreadsheet would run as a formula, on one mention.
    const category = await createCategory(owner, projectId, "=Needs reply");
    names.set(category, "=Needs reply");
    expect((await h.call("categorize_mention", { mentionId: awkward[0]!.id, categoryId: category }, owner.key)).status).toBe(200);
  }, 120_000);

  const exportOf = (query: Record<string, unknown>, headers: Record<string, string> = {}) => h.call("export_mentions", { projectId, ...query }, owner.key, { headers });

  it.each([
    ["no filters", {}],
    ["source reddit", { source: ["reddit"] }],
    ["q", { q: "item" }],
  ])("streams as NDJSON exactly what the paged list returns, with %s", async (_name, filters) => {
    const res = await exportOf({ ...filters, format: "ndjson" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="mentions-${projectId}.ndjson"`);
    const lines = res.text.split("\n");
    expect(lines.pop()).toBe("");
    const listed = await listAllMentions(h, owner, projectId, filters);
    expect(listed.length).toBeGreaterThan(0);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(listed);
  });

  it("streams as CSV (by format or Accept) what the paged list returns with names beside the ids, read back by a CSV library, formulas defused", async () => {
    for (const res of [await exportOf({ format: "csv" }), await exportOf({}, { Accept: "text/csv" })]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="mentions-${projectId}.csv"`);
      const [header, ...rows] = parse(res.text) as string[][];
      expect(header).toEqual(COLUMNS);
      const listed = await listAllMentions(h, owner, projectId);
      const defused = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
      expect(rows).toEqual(
        listed.map((m) =>
          [
            m.id,
            m.projectId,
            m.source,
            m.sourceId,
            m.url,
            m.publishedAt,
            m.author.handle,
            m.author.name,
            m.title ?? "",
            m.text,
            m.status,
            m.categoryId ?? "",
            m.categoryId ? names.get(m.categoryId) : "",
            m.sentiment.label,
            m.keywordIds.join(";"),
            m.keywordIds.map((id) => names.get(id)).join(";"),
            m.groupIds.join(";"),
            m.groupIds.map((id) => names.get(id)).join(";"),
            m.matchedAt,
            ...relevanceAndStoryCells(m),
          ].map((cell) => defused(cell!)),
        ),
      );
      const cell = (row: string[], column: string) => row[COLUMNS.indexOf(column)]!;
      // The categorized awkward post: a category name guarded like any cell, two keywords in two groups.
      const named = rows.filter((r) => cell(r, "categoryName") !== "");
      expect(named.map((r) => cell(r, "categoryName"))).toEqual(["'=Needs reply"]);
      expect(cell(named[0]!, "keywordNames").split(";").sort()).toEqual(["Exportly", "quoted"]);
      expect(cell(named[0]!, "groupNames").split(";").sort()).toEqual(["Competitors", "My brand"]);
      const formula = rows.find((r) => r[9]!.includes("HYPERLINK"));
      expect(formula?.[9]).toBe(`'${AWKWARD[2]}`);
      expect(rows.find((r) => r[9]!.includes("two lines"))?.[9]).toBe(AWKWARD[1]);
    }
  });

  it("lets format win over Accept and answers 406 problem+json to an Accept it cannot meet", async () => {
    const formatWins = await exportOf({ format: "ndjson" }, { Accept: "application/xml" });
    expect(formatWins.status).toBe(200);
    expect(formatWins.headers.get("content-type")).toBe("application/x-ndjson");
    const refused = await exportOf({}, { Accept: "application/xml" });
    expect(refused.status).toBe(406);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(refused.body).toMatchObject({ code: "not_acceptable", errors: [{ path: "Accept" }] });
    const anything = await exportOf({}, { Accept: "*/*" });
    expect(anything.headers.get("content-type")).toBe("application/x-ndjson");
  });

  it("leaves out a mention that arrives while the export is being read", async () => {
    const listedBefore = idsOf(await listAllMentions(h, owner, projectId));
    const res = await fetch(`${h.url}${h.pathOf("export_mentions", { projectId })}`, { headers: { Authorization: `Bearer ${owner.key}` } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    let text = decoder.decode(first.value, { stream: true });
    // Older than every other: it would sort onto the export's last page.
    const late = postFor(projectId, { text: "Exportly arrived late", publishedAt: new Date(Date.now() - 100 * 365 * 24 * HOUR) });
    await ingestPosts(h, [late]);
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
    const exported = text.trimEnd().split("\n").map((l) => (JSON.parse(l) as MentionData).id);
    expect(exported).toEqual(listedBefore);
    const lateMention = (await listAllMentions(h, owner, projectId, { q: "arrived late" }))[0]!;
    expect(exported).not.toContain(lateMention.id);
  });

  it("keeps an export's pages at the snapshot of its first page (the service's cursor)", async () => {
    // As the edge calls it: the caller with their membership of the project.
    const asOwner = <T>(fn: () => Promise<T>) =>
      runWithCaller(testCaller({ id: owner.userId, workspaceId: owner.workspaceId, email: owner.email }, [{ projectId, role: commonV1.Role.ROLE_OWNER, workspaceId: owner.workspaceId }]), fn);
    const first = await asOwner(() => h.mention.exportMentions({ projectId, limit: 1000, cursor: "" }));
    expect(first.nextCursor).not.toBe("");
    const late = postFor(projectId, { text: "Exportly between pages", publishedAt: new Date(Date.now() - 200 * 365 * 24 * HOUR) });
    await ingestPosts(h, [late]);
    const rest = [];
    for (let cursor = first.nextCursor; cursor; ) {
      const page = await asOwner(() => h.mention.exportMentions({ projectId, limit: 1000, cursor }));
      rest.push(...page.mentions);
      cursor = page.nextCursor;
    }
    expect([...first.mentions, ...rest].map((m) => m.text)).not.toContain("Exportly between pages");
  });
});

describe("get_usage", () => {
  it("counts the workspace's mentions this month, with no allowance", async () => {
    const owner = await h.newActor();
    const monthOf = (d: Date) => `${d.getUTCFullYear()}-${d.getUTCMonth()}`;
    const before = new Date();
    const usage0 = dataOf<{ limits: { mentionsThisMonth: { allowance: number | null; used: number } } }>(await h.call("get_usage", {}, owner.key));
    expect(usage0.limits.mentionsThisMonth).toEqual({ allowance: null, used: 0, available: true });
    const projects = [await createProject(h, owner), await createProject(h, owner)];
    await keywordWithMentions(h, owner, projects[0]!, 3);
    await keywordWithMentions(h, owner, projects[1]!, 2);
    const usage = dataOf<{ limits: { mentionsThisMonth: { allowance: number | null; used: number } } }>(await h.call("get_usage", {}, owner.key));
    // A run across the first instant of a month starts counting again; the count is then at most 5.
    if (monthOf(before) === monthOf(new Date())) expect(usage.limits.mentionsThisMonth).toEqual({ allowance: null, used: 5, available: true });
    else expect(usage.limits.mentionsThisMonth.used).toBeLessThanOrEqual(5);
  });
});

describe("mentions as MCP tools", () => {
  it("lists and triages mentions as tools whose outputSchema accepts the answers, and offers no export tool", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const { mentions } = await keywordWithMentions(h, owner, projectId, 2);
    const client = new Client({ name: "earshot-mentions-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${owner.key}` } } }));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["list_mentions", "update_mention_status", "get_mention", "create_mention_view"]));
      expect(names).not.toContain("export_mentions");

      const listed = await client.callTool({ name: "list_mentions", arguments: { projectId, status: ["open"], source: ["x"], limit: 5 } });
      expect(listed.isError).toBeFalsy();
      expect((listed.structuredContent as { data: MentionData[] }).data).toEqual(await listAllMentions(h, owner, projectId, { status: ["open"], source: ["x"] }));

      const updated = await client.callTool({ name: "update_mention_status", arguments: { mentionId: mentions[0]!.id, status: "follow_up", idempotencyKey: "mcp-status-0001" } });
      expect(updated.isError).toBeFalsy();
      expect((updated.structuredContent as { data: MentionData }).data).toMatchObject({ id: mentions[0]!.id, status: "follow_up" });

      for (const [name, result] of [["list_mentions", listed], ["update_mention_status", updated]] as const) {
        const validate = strictAjv().compile(tools.find((t) => t.name === name)!.outputSchema!);
        expect({ name, valid: validate(result.structuredContent), errors: validate.errors ?? null }).toEqual({ name, valid: true, errors: null });
      }

      const bad = await client.callTool({ name: "list_mentions", arguments: { projectId, status: ["open", "closed"] } });
      expect(bad.isError).toBe(true);
      expect(JSON.parse((bad.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ status: 400, errors: [{ path: "status.1" }] });

      await expect(client.callTool({ name: "export_mentions", arguments: { projectId } })).rejects.toThrow(/Unknown tool/);
    } finally {
      await client.close();
    }
  });
});
