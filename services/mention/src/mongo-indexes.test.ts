import { countByPipeline, openMongoStore } from "@earshot/platform";
import { describeWithServer } from "@earshot/platform/testing";
import type { MentionFilterInput } from "./fields";
import { mentionQuery } from "./domain/filters";
import { MENTIONS, openMentionCollections } from "./store";

// Names, for every list filter, the MongoDB index that serves list_mentions' page (the filter, newest first
// by publishedAt then _id) and analytics' count, and checks it with explain(): the winning plan reads that
// index and sorts nothing in memory; likewise for a page of the change feed (by changeSeq). Runs against MONGO_URL (a replica set) or a throwaway container.

const PROJECT = "prj_explain";

const SERVED_BY: Array<[string, MentionFilterInput, string]> = [
  ["no filter", {}, "projectId_1_publishedAt_-1__id_-1"],
  ["status", { status: ["done"] }, "projectId_1_status_1_publishedAt_-1__id_-1"],
  ["source", { source: ["reddit"] }, "projectId_1_source_1_publishedAt_-1__id_-1"],
  ["sentiment", { sentiment: ["negative"] }, "projectId_1_sentiment.label_1_publishedAt_-1__id_-1"],
  ["keywordId", { keywordId: ["kw_1"] }, "projectId_1_keywordIds_1_publishedAt_-1__id_-1"],
  ["groupId", { groupId: ["kwg_1"] }, "projectId_1_groupIds_1_publishedAt_-1__id_-1"],
  ["categoryId", { categoryId: ["cat_1"] }, "projectId_1_categoryId_1_publishedAt_-1__id_-1"],
  ["q", { q: "w8" }, "projectId_1_words_1_publishedAt_-1__id_-1"],
  ["since/until", { since: "2026-03-01T00:00:00Z", until: "2026-03-08T00:00:00Z" }, "projectId_1_publishedAt_-1__id_-1"],
];

/** Every index name and stage name anywhere in an explain() answer (find or aggregate, classic or SBE). */
const planParts = (plan: unknown, into = { indexes: new Set<string>(), stages: new Set<string>() }) => {
  if (Array.isArray(plan)) plan.forEach((p) => planParts(p, into));
  else if (plan !== null && typeof plan === "object") {
    for (const [k, v] of Object.entries(plan)) {
      if (k === "rejectedPlans") continue;
      if (k === "indexName" && typeof v === "string") into.indexes.add(v);
      if (k === "stage" && typeof v === "string") into.stages.add(v);
      planParts(v, into);
    }
  }
  return into;
};

describeWithServer("mention indexes on MongoDB, shown with explain()", process.env.MONGO_URL, () => {
  let url = process.env.MONGO_URL ?? "";
  let stopContainer: (() => Promise<unknown>) | undefined;
  const database = `mention_explain_${Math.random().toString(36).slice(2, 10)}`;
  let store: Awaited<ReturnType<typeof openMongoStore>>;

  beforeAll(async () => {
    if (!url) {
      const { MongoDBContainer } = await import("@testcontainers/mongodb");
      const container = await new MongoDBContainer("mongo:7.0").start();
      const connection = container.getConnectionString();
      url = `${connection}${connection.includes("?") ? "&" : "?"}directConnection=true`;
      stopContainer = () => container.stop();
    }
    store = await openMongoStore({ url, database });
    const { mentions } = await openMentionCollections(store);
    // Enough mentions that a collection scan is not the cheapest plan.
    await mentions.insertMany(
      Array.from({ length: 2000 }, (_, i) => ({
        _id: `men_${String(i).padStart(6, "0")}`,
        projectId: PROJECT,
        workspaceId: "wsp_1",
        source: (["x", "reddit", "youtube", "linkedin"] as const)[i % 4] as "x",
        sourceId: `p${i}`,
        postKey: `${PROJECT}|x|p${i}`,
        url: `https://example.com/${i}`,
        text: `w${i % 10} w8`,
        author: { id: `u${i % 50}`, handle: `user${i % 50}`, name: "Someone" },
        authorKey: `user${i % 50}`,
        publishedAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000),
        keywordIds: [`kw_${i % 20}`],
        groupIds: [`kwg_${i % 3}`],
        matches: [],
        sentiment: { label: (["positive", "neutral", "negative"] as const)[i % 3] as "neutral", score: 0, method: "lexicon" as const },
        words: [`w${i % 10}`, "w8"],
        status: (["open", "done", "follow_up"] as const)[i % 3] as "open",
        ...(i % 3 === 0 ? { categoryId: `cat_${i % 5}` } : {}),
        collectedAt: new Date(),
        matchedAt: new Date(),
        updatedAt: new Date(),
        history: [],
        changeSeq: i + 1,
        createdSeq: i + 1,
      })),
    );
  }, 180_000);
  afterAll(async () => {
    await store?.client.db(database).dropDatabase();
    await store?.close();
    await stopContainer?.();
  }, 60_000);

  it.each(SERVED_BY)("serves a page filtered by %s from its index, sorting nothing in memory", async (_name, filters, index) => {
    const query = mentionQuery(PROJECT, filters);
    const explained = await store.client.db(database).collection(MENTIONS).find(query).sort({ publishedAt: -1, _id: -1 }).limit(26).explain("queryPlanner");
    const { indexes, stages } = planParts((explained as { queryPlanner: unknown }).queryPlanner);
    expect([...indexes]).toContain(index);
    expect(stages.has("SORT")).toBe(false);
    expect(stages.has("COLLSCAN")).toBe(false);
  });

  it("serves a change feed page from (projectId, changeSeq), sorting nothing in memory", async () => {
    const query = { ...mentionQuery(PROJECT, {}), changeSeq: { $gt: 1500, $lte: 2000 } };
    const explained = await store.client.db(database).collection(MENTIONS).find(query).sort({ changeSeq: 1 }).limit(101).explain("queryPlanner");
    const { indexes, stages } = planParts((explained as { queryPlanner: unknown }).queryPlanner);
    expect([...indexes]).toContain("projectId_1_changeSeq_1");
    expect(stages.has("SORT")).toBe(false);
  });

  it.each(SERVED_BY)("counts analytics filtered by %s from an index range", async (_name, filters) => {
    const query = mentionQuery(PROJECT, { ...filters, since: filters.since ?? "2026-01-01T00:00:00Z", until: filters.until ?? "2026-03-31T00:00:00Z" });
    const pipeline = countByPipeline(query, { by: "source", buckets: { field: "publishedAt", starts: [new Date(Date.UTC(2026, 0, 1))] } });
    const explained = await store.client.db(database).collection(MENTIONS).aggregate(pipeline).explain("queryPlanner");
    const { indexes, stages } = planParts(explained);
    expect(indexes.size).toBeGreaterThan(0);
    expect(stages.has("COLLSCAN")).toBe(false);
  });
});
