import { parse } from "csv-parse/sync";
import type { Mention } from "../mentions/resource";
import type { ExportNames } from "./export-names";
import { MENTION_CSV_COLUMNS, mentionCsvHeader, mentionCsvRecord } from "./mention-rows";

// A CSV row names the keywords, groups and category beside their ids, looked up in the names the export
// read once; the formula guard covers names like every other cell.

const mention = (fields: Partial<Mention> = {}): Mention => ({
  id: "men_1",
  projectId: "prj_1",
  source: "youtube",
  sourceId: "v1",
  url: "https://www.youtube.com/watch?v=v1",
  title: null,
  text: "Acme rocks",
  author: { id: "UC1", handle: "@acmefans", name: "Acme Fans", url: null, followers: null },
  publishedAt: "2026-11-20T09:00:00.000Z",
  lang: null,
  parentId: null,
  metrics: null,
  keywordIds: ["kw_1", "kw_2"],
  groupIds: ["kwg_brand", "kwg_rivals"],
  matches: [],
  sentiment: { label: "positive", score: 0.5, method: "lexicon" },
  status: "open",
  categoryId: "cat_1",
  collectedAt: "2026-11-20T09:00:01.000Z",
  matchedAt: "2026-11-20T09:00:02.000Z",
  updatedAt: "2026-11-20T09:00:02.000Z",
  relevance: null,
  feedback: null,
  story: null,
  ...fields,
});

const names: ExportNames = {
  keywords: new Map([
    ["kw_1", "@acme"],
    ["kw_2", "acme corp"],
  ]),
  groups: new Map([
    ["kwg_brand", "My brand"],
    ["kwg_rivals", "Competitors"],
  ]),
  categories: new Map([["cat_1", "Needs a reply, today"]]),
};

const rowOf = (m: Mention): Record<string, string> => {
  const [header, row] = parse(mentionCsvHeader() + mentionCsvRecord(m, names)) as string[][];
  return Object.fromEntries(header!.map((column, i) => [column, row![i]!]));
};

describe("export CSV rows", () => {
  it("puts the names beside the ids: category, keywords and groups, names in the order of their ids", () => {
    expect(MENTION_CSV_COLUMNS.filter((c) => /^(category|keyword|group)/.test(c))).toEqual(["categoryId", "categoryName", "keywordIds", "keywordNames", "groupIds", "groupNames"]);
    expect(rowOf(mention())).toMatchObject({
      categoryId: "cat_1",
      categoryName: "Needs a reply, today",
      keywordIds: "kw_1;kw_2",
      // The formula guard applies to a cell of names like to any cell.
      keywordNames: "'@acme;acme corp",
      groupIds: "kwg_brand;kwg_rivals",
      groupNames: "My brand;Competitors",
      authorHandle: "'@acmefans",
    });
  });

  it("leaves a name empty for an uncategorized mention and for an id whose group or category is gone", () => {
    expect(rowOf(mention({ categoryId: null, groupIds: ["kwg_gone", "kwg_rivals"] }))).toMatchObject({ categoryId: "", categoryName: "", groupNames: ";Competitors" });
    expect(rowOf(mention({ categoryId: "cat_gone" }))).toMatchObject({ categoryId: "cat_gone", categoryName: "" });
  });

  it("ends with the relevance (reasons as features, most influential first) and the story, empty when the mention has none", () => {
    const scored = mention({
      relevance: { score: 0.91, label: "relevant", model: "nb1.3.abc", reasons: [{ feature: "word:composer", weight: 1.2 }, { feature: "pair:_ agent", weight: 0.4 }] },
      story: { id: "sto_1", size: 2, firstMentionId: "men_0" },
    });
    expect(MENTION_CSV_COLUMNS.slice(-5)).toEqual(["relevanceScore", "relevanceLabel", "relevanceReasons", "storyId", "storySize"]);
    expect(rowOf(scored)).toMatchObject({ relevanceScore: "0.91", relevanceLabel: "relevant", relevanceReasons: "word:composer;pair:_ agent", storyId: "sto_1", storySize: "2" });
    expect(rowOf(mention())).toMatchObject({ relevanceScore: "", relevanceLabel: "", relevanceReasons: "", storyId: "", storySize: "" });
  });
});
