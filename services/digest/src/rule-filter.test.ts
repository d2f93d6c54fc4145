import fc from "fast-check";
import { openEmbeddedStore } from "@earshot/platform";
import type { MentionDoc } from "./store";
import { ruleFilter, ruleMatches } from "./domain/matching";

// A rule's filter is said twice: for a mention in hand (instant alerts) and as a store query (digests,
// which count and list in the store). For any rule and any mentions, the store finds exactly the mentions
// `ruleMatches` accepts. Fixed seed: the same cases every run.

const KEYWORDS = ["kw_1", "kw_2", "kw_3"];
const GROUPS = ["kwg_1", "kwg_2"];
const SOURCES = ["x", "reddit", "youtube", "linkedin"];
const SENTIMENTS = ["positive", "neutral", "negative"];

const mention = fc.record({
  keywordIds: fc.subarray(KEYWORDS, { minLength: 1 }),
  groupIds: fc.subarray(GROUPS),
  source: fc.constantFrom(...SOURCES),
  sentiment: fc.constantFrom(...SENTIMENTS),
  // Absent: stored before scoring (counts as 0.5).
  relevanceScore: fc.option(fc.constantFrom(0, 0.3, 0.5, 0.6, 0.9), { nil: undefined }),
});
const filters = fc.record({
  keywordIds: fc.subarray(KEYWORDS),
  groupIds: fc.subarray(GROUPS),
  sources: fc.subarray(SOURCES),
  sentiments: fc.subarray(SENTIMENTS),
  minRelevance: fc.option(fc.constantFrom(0, 0.3, 0.5, 0.6, 1), { nil: undefined }),
});

describe("a rule's filter as a store query", () => {
  it("finds exactly the mentions ruleMatches accepts", async () => {
    const store = await openEmbeddedStore();
    try {
      const mentions = store.collection<MentionDoc>("mentions");
      await fc.assert(
        fc.asyncProperty(fc.array(mention, { maxLength: 20 }), filters, async (given, f) => {
          await mentions.deleteMany({});
          const docs = given.map(({ relevanceScore, ...m }, i) => ({ _id: `men_${i}`, projectId: "prj_1", ...m, ...(relevanceScore !== undefined && { relevanceScore }) }) as unknown as MentionDoc);
          if (docs.length > 0) await mentions.insertMany(docs);
          const { minRelevance, ...lists } = f;
          const rule = { filters: { ...lists, ...(minRelevance !== undefined && { minRelevance }) } };
          const found = (await mentions.find({ projectId: "prj_1", ...ruleFilter(rule) })).map((d) => d._id).sort();
          expect(found).toEqual(docs.filter((d) => ruleMatches(rule, d)).map((d) => d._id).sort());
        }),
        { seed: 30, numRuns: 100 },
      );
    } finally {
      await store.close();
    }
  });
});
