import { Metadata } from "@grpc/grpc-js";
import type { AsyncService, CallerContext, RpcContext } from "@earshot/platform";
import { refusalOf } from "@earshot/platform/testing";
import { commonV1, mentionV1 } from "@earshot/proto";
import { testCaller } from "../../../platform/src/testing/caller";
import { knowDefaultGroups, knowProject } from "../read-test-support";
import { type MentionWorld, openMentionWorld } from "../test-support";
import { changesRpc } from "./changes-rpc";
import { ingestRpc } from "./ingest-rpc";
import { mentionRpc } from "./mention-rpc";
import { previewRpc } from "./preview-rpc";

const MS = mentionV1.MentionStatus;

// The adapter's handlers called as the gRPC server calls them: a decoded request and a context carrying
// the caller the edge sent. What is checked is the translation: enums, timestamps, int64 as strings,
// optional fields and proto3 zero values.

describe("mention gRPC adapter", () => {
  let world: MentionWorld;
  let rpc: ReturnType<typeof mentionRpc>;
  const projectId = "prj_01JMENTIONRPC0000000000001";
  const ana = { id: "usr_ana", workspaceId: "wsp_1", email: "ana@example.com" };
  const S = commonV1.Source;
  const ctx = (role: commonV1.Role | null, idempotencyKey?: string): RpcContext => ({
    requestId: "req_test",
    operator: false,
    idempotencyKey,
    caller: role === null ? undefined : (testCaller(ana, [{ projectId, role, workspaceId: ana.workspaceId }]) as CallerContext),
    metadata: new Metadata(),
    signal: new AbortController().signal,
    deadline: undefined,
  });
  const editor = () => ctx(commonV1.Role.ROLE_EDITOR);
  const viewer = () => ctx(commonV1.Role.ROLE_VIEWER);
  const noFilters = (): mentionV1.MentionFilters => ({ status: [], keywordIds: [], groupIds: [], sources: [], categoryIds: [], sentiments: [], authors: [], relevance: [] });

  beforeEach(async () => {
    world = await openMentionWorld();
    rpc = mentionRpc(world.deps);
  });
  afterEach(() => world.close());

  it("with ingestion's two handlers, the change feed's and the preview's makes the whole MentionService", () => {
    const whole: AsyncService<mentionV1.MentionServiceServer> = { ...rpc, ...ingestRpc(world.deps), ...changesRpc(world.deps), ...previewRpc(world.deps) };
    expect(Object.keys(whole).sort()).toEqual(Object.keys(mentionV1.MentionServiceService).sort());
    expect(Object.keys(rpc)).not.toContain("ingestPosts");
  });

  it("getMention: source enum, timestamps, int64 strings, optional fields and history", async () => {
    const published = new Date("2026-06-01T10:00:00.000Z");
    const m = await world.seedMention(projectId, {
      source: "reddit",
      title: "Acme?",
      lang: "en",
      author: { id: "t2_a", handle: "ana", name: "Ana", followers: 1234 },
      metrics: { likes: 1, replies: 2, shares: 3, views: 4 },
      publishedAt: published,
    });
    await rpc.updateMentionStatus({ mentionId: m._id, status: MS.MENTION_STATUS_DONE }, editor());
    const { mention } = await rpc.getMention({ mentionId: m._id }, viewer());
    expect(mention).toMatchObject({
      id: m._id,
      source: S.SOURCE_REDDIT,
      title: "Acme?",
      lang: "en",
      parentId: undefined,
      author: { id: "t2_a", handle: "ana", name: "Ana", url: undefined, followers: "1234" },
      metrics: { likes: "1", replies: "2", shares: "3", views: "4" },
      publishedAt: published,
      matches: [{ keywordId: "kw_1", term: "Acme", field: "text", start: 0, end: 4 }],
      sentiment: { label: "neutral", score: 0, method: "lexicon" },
      status: MS.MENTION_STATUS_DONE,
      categoryId: "",
      history: [{ field: "status", from: "open", to: "done", byUserId: "usr_ana", at: expect.any(Date) }],
    });
    expect(mention?.matchedAt).toBeInstanceOf(Date);
    expect((await refusalOf(rpc.getMention({ mentionId: "" }, viewer()))).code).toBe("not_found");
    expect((await refusalOf(rpc.getMention({ mentionId: m._id }, ctx(null)))).code).toBe("unauthorized");
  });

  it("listMentions: proto filters (lists, none, timestamps), limit 0 as the default, no history, empty cursor at the end", async () => {
    const old = await world.seedMention(projectId, { source: "reddit", publishedAt: new Date("2026-06-01T00:00:00Z") });
    await world.seedMention(projectId, { source: "reddit", publishedAt: new Date("2026-05-01T00:00:00Z") });
    await world.seedMention(projectId, { source: "x", publishedAt: new Date("2026-06-02T00:00:00Z") });
    await rpc.updateMentionStatus({ mentionId: old._id, status: MS.MENTION_STATUS_FOLLOW_UP }, editor());
    const page = await rpc.listMentions(
      { projectId, filters: { ...noFilters(), sources: ["reddit"], categoryIds: ["none"], since: new Date("2026-05-15T00:00:00Z") }, limit: 0, cursor: "" },
      viewer(),
    );
    expect(page.mentions.map((x) => [x.id, x.source, x.history])).toEqual([[old._id, S.SOURCE_REDDIT, []]]);
    expect(page.nextCursor).toBe("");
    const refusal = await refusalOf(rpc.listMentions({ projectId, filters: { ...noFilters(), sources: ["myspace"] }, limit: 0, cursor: "" }, viewer()));
    expect(refusal.errors.map((e) => e.path)).toEqual(["source.0"]);
  });

  it("exportMentions: pages with an opaque cursor, empty after the last", async () => {
    for (let i = 0; i < 3; i++) await world.seedMention(projectId);
    const first = await rpc.exportMentions({ projectId, limit: 2, cursor: "" }, viewer());
    expect(first.mentions).toHaveLength(2);
    expect(first.nextCursor).not.toBe("");
    const second = await rpc.exportMentions({ projectId, limit: 2, cursor: first.nextCursor }, viewer());
    expect(second.mentions).toHaveLength(1);
    expect(second.nextCursor).toBe("");
  });

  it("updateMentionStatus: the status enum in, the mention with its history out; UNSPECIFIED or an unknown value refused naming the field", async () => {
    const m = await world.seedMention(projectId);
    const done = await rpc.updateMentionStatus({ mentionId: m._id, status: MS.MENTION_STATUS_FOLLOW_UP }, editor());
    expect(done.mention).toMatchObject({ status: MS.MENTION_STATUS_FOLLOW_UP, history: [{ field: "status", from: "open", to: "follow_up", at: expect.any(Date) }] });
    expect((await refusalOf(rpc.updateMentionStatus({ mentionId: m._id, status: MS.MENTION_STATUS_UNSPECIFIED }, editor()))).errors.map((e) => e.path)).toEqual(["status"]);
    expect((await refusalOf(rpc.updateMentionStatus({ mentionId: m._id, status: 42 as mentionV1.MentionStatus }, editor()))).errors.map((e) => e.path)).toEqual(["status"]);
    expect((await refusalOf(rpc.updateMentionStatus({ mentionId: m._id, status: MS.MENTION_STATUS_DONE }, viewer()))).code).toBe("forbidden");
  });

  it("categorizeMention: a category id sets it, an empty one clears it", async () => {
    const m = await world.seedMention(projectId);
    const { category } = await rpc.createCategory({ projectId, name: "Leads" }, editor());
    const put = await rpc.categorizeMention({ mentionId: m._id, categoryId: category!.id }, editor());
    expect(put.mention?.categoryId).toBe(category!.id);
    const cleared = await rpc.categorizeMention({ mentionId: m._id, categoryId: "" }, editor());
    expect(cleared.mention?.categoryId).toBe("");
    expect(cleared.mention?.history.map((h) => [h.from, h.to])).toEqual([
      ["", category!.id],
      [category!.id, ""],
    ]);
  });

  it("getMentionAnalytics: timestamps in, bucket starts out, counts as int64 strings, share of voice", async () => {
    await knowProject(world, projectId, "Europe/Paris");
    await knowDefaultGroups(world, projectId, { myBrand: "kwg_1", competitors: "kwg_2" });
    await world.seedMention(projectId, { publishedAt: new Date("2026-06-01T10:00:00Z") });
    const a = await rpc.getMentionAnalytics(
      { projectId, since: new Date("2026-06-01T00:00:00+02:00"), until: new Date("2026-06-03T00:00:00+02:00"), interval: "", groupBy: "source", filters: noFilters() },
      viewer(),
    );
    expect(a).toEqual({
      buckets: [
        { start: new Date("2026-05-31T22:00:00Z"), counts: { x: "1" } },
        { start: new Date("2026-06-01T22:00:00Z"), counts: {} },
      ],
      totals: { x: "1" },
      total: "1",
      shareOfVoice: { myBrand: "1", competitors: "0", myBrandShare: 1 },
      timezone: "Europe/Paris",
    });
    const refusal = await refusalOf(rpc.getMentionAnalytics({ projectId, interval: "minute", groupBy: "", filters: undefined }, viewer()));
    expect(refusal.errors.map((e) => e.path)).toEqual(["interval"]);
  });

  it("createCategory: optional description and icon, the next order, timestamps, the idempotency key from the call", async () => {
    const created = await rpc.createCategory({ projectId, name: "Leads", icon: "💰" }, ctx(commonV1.Role.ROLE_EDITOR, "cat-key-0000001"));
    expect(created.category).toMatchObject({ projectId, name: "Leads", description: "", icon: "💰", order: 0, createdAt: expect.any(Date), updatedAt: expect.any(Date) });
    const replay = await rpc.createCategory({ projectId, name: "Leads", icon: "💰" }, ctx(commonV1.Role.ROLE_EDITOR, "cat-key-0000001"));
    expect(replay.category?.id).toBe(created.category?.id);
    expect((await rpc.createCategory({ projectId, name: "Press" }, editor())).category?.order).toBe(1);
    expect((await refusalOf(rpc.createCategory({ projectId, name: "" }, editor()))).errors.map((e) => e.path)).toEqual(["name"]);
  });

  it("listCategories: limit 0 as the default, a cursor between pages and an empty one at the end", async () => {
    await rpc.createCategory({ projectId, name: "Press", order: 5 }, editor());
    await rpc.createCategory({ projectId, name: "Leads", order: 0 }, editor());
    const all = await rpc.listCategories({ projectId, limit: 0, cursor: "" }, viewer());
    expect(all.categories.map((c) => [c.name, c.order])).toEqual([
      ["Leads", 0],
      ["Press", 5],
    ]);
    const first = await rpc.listCategories({ projectId, limit: 1, cursor: "" }, viewer());
    const second = await rpc.listCategories({ projectId, limit: 1, cursor: first.nextCursor }, viewer());
    expect(second.categories.map((c) => c.name)).toEqual(["Press"]);
    expect(second.nextCursor).toBe("");
  });

  it("updateCategory: only the optional fields set change", async () => {
    const { category } = await rpc.createCategory({ projectId, name: "Leads", icon: "💰" }, editor());
    const updated = await rpc.updateCategory({ categoryId: category!.id, description: "Buyers" }, editor());
    expect(updated.category).toMatchObject({ name: "Leads", description: "Buyers", icon: "💰", order: 0 });
    expect(updated.category?.updatedAt).toBeInstanceOf(Date);
    expect((await refusalOf(rpc.updateCategory({ categoryId: "", name: "X" }, editor()))).code).toBe("not_found");
  });

  it("deleteCategory: answers the deleted category; an empty id is not_found", async () => {
    const { category } = await rpc.createCategory({ projectId, name: "Leads" }, editor());
    const deleted = await rpc.deleteCategory({ categoryId: category!.id }, editor());
    expect(deleted.category).toMatchObject({ id: category!.id, name: "Leads" });
    expect((await rpc.listCategories({ projectId, limit: 0, cursor: "" }, viewer())).categories).toEqual([]);
    expect((await refusalOf(rpc.deleteCategory({ categoryId: "" }, editor()))).code).toBe("not_found");
  });

  const viewFilters = () => ({ ...noFilters(), status: [MS.MENTION_STATUS_OPEN], categoryIds: ["none"], q: "acme", since: new Date("2026-06-01T00:00:00Z") });

  it("createMentionView: filters round-trip (lists, optional words, timestamps) and are checked", async () => {
    const { view } = await rpc.createMentionView({ projectId, name: "Open", filters: viewFilters() }, editor());
    expect(view).toMatchObject({ projectId, name: "Open", order: 0, createdAt: expect.any(Date) });
    expect(view?.filters).toEqual({ ...viewFilters(), until: undefined });
    const refusal = await refusalOf(rpc.createMentionView({ projectId, name: "", filters: { ...noFilters(), sentiments: ["angry"] } }, editor()));
    expect(refusal.errors.map((e) => e.path).sort()).toEqual(["filters.sentiment.0", "name"]);
  });

  it("listMentionViews: limit 0 as the default, empty cursor at the end; listMentions applies one by id", async () => {
    const { view } = await rpc.createMentionView({ projectId, name: "Open", filters: viewFilters() }, editor());
    const listed = await rpc.listMentionViews({ projectId, limit: 0, cursor: "" }, viewer());
    expect(listed.views.map((v) => [v.id, v.filters?.q])).toEqual([[view!.id, "acme"]]);
    expect(listed.nextCursor).toBe("");
    const matching = await world.seedMention(projectId, { publishedAt: new Date("2026-06-02T00:00:00Z"), words: ["acme"] });
    await world.seedMention(projectId, { publishedAt: new Date("2026-06-02T00:00:00Z"), words: ["other"] });
    const applied = await rpc.listMentions({ projectId, viewId: view!.id, limit: 0, cursor: "" }, viewer());
    expect(applied.mentions.map((m) => m.id)).toEqual([matching._id]);
  });

  it("getMentionView: a viewer reads it; an unknown id is not_found", async () => {
    const { view } = await rpc.createMentionView({ projectId, name: "Open", filters: viewFilters() }, editor());
    expect((await rpc.getMentionView({ viewId: view!.id }, viewer())).view).toEqual(view);
    expect((await refusalOf(rpc.getMentionView({ viewId: "view_01JNOSUCHVIEW00000000000000" }, viewer()))).code).toBe("not_found");
  });

  it("updateMentionView: absent filters leave them, present ones replace them whole", async () => {
    const { view } = await rpc.createMentionView({ projectId, name: "Open", filters: viewFilters() }, editor());
    const renamed = await rpc.updateMentionView({ viewId: view!.id, name: "Open acme", filters: undefined }, editor());
    expect(renamed.view).toMatchObject({ name: "Open acme", filters: { status: [MS.MENTION_STATUS_OPEN], q: "acme" } });
    const cleared = await rpc.updateMentionView({ viewId: view!.id, filters: noFilters(), order: 2 }, editor());
    expect(cleared.view?.order).toBe(2);
    expect(cleared.view?.filters).toEqual({ ...noFilters(), q: undefined, since: undefined, until: undefined });
  });

  it("deleteMentionView: answers the deleted view; a viewer may not", async () => {
    const { view } = await rpc.createMentionView({ projectId, name: "Open", filters: viewFilters() }, editor());
    expect((await refusalOf(rpc.deleteMentionView({ viewId: view!.id }, viewer()))).code).toBe("forbidden");
    expect((await rpc.deleteMentionView({ viewId: view!.id }, editor())).view?.id).toBe(view!.id);
    expect((await rpc.listMentionViews({ projectId, limit: 0, cursor: "" }, viewer())).views).toEqual([]);
  });
});
