import type { MentionFilterInput } from "../fields";
import { readAll } from "../read-test-support";
import type { MentionDoc } from "../store";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { listMentions } from "./mentions";
import { createMentionView } from "./views";

describe("list_mentions", () => {
  let world: MentionWorld;
  const projectId = "prj_01JLISTMENTIONS00000000001";
  const otherProject = "prj_01JLISTMENTIONS00000000002";
  const HOUR = 3_600_000;
  let t0: number;
  let m: Record<"m1" | "m2" | "m3" | "m4", MentionDoc>;

  beforeEach(async () => {
    world = await openMentionWorld();
    t0 = world.clock.now().getTime();
    const at = (hoursAgo: number) => new Date(t0 - hoursAgo * HOUR);
    m = {
      m1: await world.seedMention(projectId, {
        status: "open", source: "x", keywordIds: ["kw_a"], groupIds: ["kwg_1"], sentiment: { label: "positive", score: 0.6, method: "lexicon" },
        words: ["acme", "launch", "rocks"], author: { id: "u_a1", handle: "Alice", name: "Alice" }, authorKey: "alice", categoryId: "cat_a", publishedAt: at(1),
      }),
      m2: await world.seedMention(projectId, {
        status: "done", source: "reddit", keywordIds: ["kw_b"], groupIds: ["kwg_2"], sentiment: { label: "negative", score: -0.5, method: "lexicon" },
        words: ["globex", "broke"], author: { id: "u_b", handle: "bob", name: "Bob" }, authorKey: "bob", publishedAt: at(2),
      }),
      m3: await world.seedMention(projectId, {
        status: "follow_up", source: "youtube", keywordIds: ["kw_a", "kw_b"], groupIds: ["kwg_1", "kwg_2"], sentiment: { label: "neutral", score: 0, method: "lexicon" },
        words: ["acme", "vs", "globex", "cafe"], author: { id: "u_c", handle: "carol", name: "Carol" }, authorKey: "carol", categoryId: "cat_b", publishedAt: at(3),
      }),
      m4: await world.seedMention(projectId, {
        status: "open", source: "linkedin", keywordIds: ["kw_c"], groupIds: ["kwg_3"], sentiment: { label: "positive", score: 0.3, method: "lexicon" },
        words: ["eclair"], author: { id: "u_alice", handle: "ally", name: "Ally" }, authorKey: "ally", publishedAt: at(4),
      }),
    };
    // Another project's mention matches most filters and must never show.
    await world.seedMention(otherProject, { words: ["acme"], keywordIds: ["kw_a"], publishedAt: at(0.5) });
  });
  afterEach(() => world.close());

  const viewer = () => world.caller({ [projectId]: "viewer" });
  const iso = (hoursAgo: number) => new Date(t0 - hoursAgo * HOUR).toISOString();
  const names = async (filters: MentionFilterInput, extra: { viewId?: string } = {}) => {
    const page = await listMentions(world.deps, viewer(), { projectId, filters, ...extra });
    return page.items.map((x) => Object.entries(m).find(([, d]) => d._id === x._id)?.[0] ?? x._id);
  };

  it("lists a project's mentions newest first, without their history", async () => {
    const page = await listMentions(world.deps, viewer(), { projectId });
    expect(page.items.map((x) => x._id)).toEqual([m.m1._id, m.m2._id, m.m3._id, m.m4._id]);
    expect(page.items.every((x) => !("history" in x))).toBe(true);
    expect(page.nextCursor).toBeNull();
  });

  it.each<[string, MentionFilterInput, string[]]>([
    ["status", { status: ["open"] }, ["m1", "m4"]],
    ["several statuses", { status: ["done", "follow_up"] }, ["m2", "m3"]],
    ["keywordId", { keywordId: ["kw_a"] }, ["m1", "m3"]],
    ["groupId", { groupId: ["kwg_2"] }, ["m2", "m3"]],
    ["source", { source: ["reddit", "youtube"] }, ["m2", "m3"]],
    ["categoryId", { categoryId: ["cat_a"] }, ["m1"]],
    ["categoryId none", { categoryId: ["none"] }, ["m2", "m4"]],
    ["categoryId none or a category", { categoryId: ["none", "cat_b"] }, ["m2", "m3", "m4"]],
    ["sentiment", { sentiment: ["positive"] }, ["m1", "m4"]],
    ["q, folded", { q: "ACME" }, ["m1", "m3"]],
    ["q, every word", { q: "Acme, Globex!" }, ["m3"]],
    ["q, accents removed", { q: "Café" }, ["m3"]],
    ["q of punctuation only", { q: "?!" }, []],
    ["author handle with @, any case", { author: ["@ALICE"] }, ["m1"]],
    ["author id", { author: ["u_alice"] }, ["m4"]],
    ["several authors, handle or id", { author: ["@ALICE", "u_alice"] }, ["m1", "m4"]],
    ["since (inclusive)", { since: "" }, ["m1", "m2"]],
    ["until (exclusive)", { until: "" }, ["m3", "m4"]],
    ["since and until", { since: "", until: "" }, ["m2", "m3"]],
    ["status, source and q", { status: ["open"], source: ["x", "linkedin"], q: "acme" }, ["m1"]],
    ["categoryId none and sentiment", { categoryId: ["none"], sentiment: ["negative", "neutral"] }, ["m2"]],
    ["keywordId and groupId", { keywordId: ["kw_a"], groupId: ["kwg_2"] }, ["m3"]],
    ["author and since", { author: ["u_alice"], since: "" }, []],
  ])("filters by %s", async (_what, filters, expected) => {
    const f = { ...filters };
    // Instants are relative to the seeded mentions: since 2 h ago, until 2 h ago (or 1 h with since 3 h).
    if (f.since !== undefined) f.since = iso(f.until !== undefined ? 3 : 2);
    if (f.until !== undefined) f.until = iso(f.since !== undefined ? 1 : 2);
    expect(await names(f)).toEqual(expected);
  });

  it("refuses bad filters, limits and cursors naming the field", async () => {
    const fieldsOf = async (input: Parameters<typeof listMentions>[2]) => (await refusalOf(listMentions(world.deps, viewer(), input))).errors.map((e) => e.path);
    expect(await fieldsOf({ projectId: "" })).toEqual(["projectId"]);
    expect(await fieldsOf({ projectId, filters: { status: ["closed"] } })).toEqual(["status.0"]);
    expect(await fieldsOf({ projectId, filters: { since: "yesterday" } })).toEqual(["since"]);
    expect(await fieldsOf({ projectId, filters: { since: iso(1), until: iso(2) } })).toEqual(["until"]);
    expect(await fieldsOf({ projectId, filters: { colour: "red" } })).toEqual(["colour"]);
    expect(await fieldsOf({ projectId, filters: { status: ["open", "open"] } })).toEqual(["status"]);
    expect(await fieldsOf({ projectId, limit: 0 })).toEqual(["limit"]);
    expect(await fieldsOf({ projectId, limit: 101 })).toEqual(["limit"]);
    expect(await fieldsOf({ projectId, cursor: "not-a-cursor" })).toEqual(["cursor"]);
  });

  it("answers not_found for a project the caller is not in, as for a missing one", async () => {
    const outsider = world.caller({ [otherProject]: "owner" });
    const hidden = await refusalOf(listMentions(world.deps, outsider, { projectId }));
    const missing = await refusalOf(listMentions(world.deps, outsider, { projectId: "prj_01JNOSUCHPROJECT0000000000" }));
    expect(hidden.code).toBe("not_found");
    expect(hidden.message).toBe(missing.message);
  });

  it("applies a saved view, explicit members overriding the view's", async () => {
    const view = await createMentionView(world.deps, world.caller({ [projectId]: "editor" }), {
      projectId,
      name: "Open acme",
      filters: { status: ["open", "follow_up"], q: "acme" },
    });
    expect(await names({}, { viewId: view._id })).toEqual(["m1", "m3"]);
    expect(await names({ status: ["follow_up"] }, { viewId: view._id })).toEqual(["m3"]);
    expect(await names({ q: "globex" }, { viewId: view._id })).toEqual(["m3"]);
    expect(await names({ status: [] }, { viewId: view._id })).toEqual(["m1", "m3"]);
    expect(await names({ source: ["x"] }, { viewId: view._id })).toEqual(["m1"]);
  });

  it("refuses a view of another project, or a missing one, naming viewId", async () => {
    const theirs = await createMentionView(world.deps, world.caller({ [otherProject]: "editor" }), { projectId: otherProject, name: "Theirs", filters: {} });
    for (const viewId of [theirs._id, "view_01JNOSUCHVIEW00000000000000"]) {
      const refusal = await refusalOf(listMentions(world.deps, viewer(), { projectId, viewId }));
      expect(refusal.errors.map((e) => e.path)).toEqual(["viewId"]);
    }
  });
});

describe("list_mentions paging", () => {
  let world: MentionWorld;
  const projectId = "prj_01JLISTPAGING0000000000001";
  beforeEach(async () => {
    world = await openMentionWorld();
  });
  afterEach(() => world.close());

  it("pages over 1,000 mentions with inserts between pages, with no duplicates and no gaps", async () => {
    const base = world.clock.now().getTime();
    const original: MentionDoc[] = [];
    // Three mentions share each second, so ties are broken by id across page boundaries.
    for (let i = 0; i < 1050; i++) original.push(await world.seedMention(projectId, { publishedAt: new Date(base - 60_000 - Math.floor(i / 3) * 1000) }));
    const added: MentionDoc[] = [];
    const viewer = world.caller({ [projectId]: "viewer" });
    const seen = await readAll(
      async (cursor) => listMentions(world.deps, viewer, { projectId, limit: 100, cursor }),
      async (n) => {
        world.clock.advance(10);
        // One newer than everything (before the cursor: not in this read), and one in the part not read
        // yet (after it: must be read), at an instant already taken by other mentions.
        await world.seedMention(projectId, { publishedAt: new Date(base + n * 1000) });
        added.push(await world.seedMention(projectId, { publishedAt: new Date(base - 60_000 - (n * 40 + 20) * 1000) }));
      },
    );
    const ids = seen.map((x) => x._id);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = [...original, ...added].sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime() || (a._id < b._id ? 1 : -1));
    expect(ids).toEqual(expected.map((x) => x._id));
  });
});
