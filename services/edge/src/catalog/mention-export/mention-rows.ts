import type { Mention } from "../mentions/resource";
import { csvRecord } from "./csv";
import type { ExportNames } from "./export-names";

// What export_mentions writes for each mention: a JSON line (the Mention list_mentions returns) or a CSV
// record of fixed columns. A CSV is read by people in a spreadsheet, so each id column has the names
// beside it; lists are `;`-separated, names in the order of their ids. Relevance and story come last, so
// a sheet built on the earlier columns keeps its places; they let a filtered export (minRelevance) show
// why each row was kept and which rows are copies of one story.

export const MENTION_CSV_COLUMNS = [
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
] as const;

const namesOf = (ids: readonly string[], names: ReadonlyMap<string, string>) => ids.map((id) => names.get(id) ?? "").join(";");

const cells = (m: Mention, names: ExportNames): Record<(typeof MENTION_CSV_COLUMNS)[number], string> => ({
  id: m.id,
  projectId: m.projectId,
  source: m.source,
  sourceId: m.sourceId,
  url: m.url,
  publishedAt: m.publishedAt,
  authorHandle: m.author.handle,
  authorName: m.author.name,
  title: m.title ?? "",
  text: m.text,
  status: m.status,
  categoryId: m.categoryId ?? "",
  categoryName: m.categoryId === null ? "" : (names.categories.get(m.categoryId) ?? ""),
  sentiment: m.sentiment.label,
  keywordIds: m.keywordIds.join(";"),
  keywordNames: namesOf(m.keywordIds, names.keywords),
  groupIds: m.groupIds.join(";"),
  groupNames: namesOf(m.groupIds, names.groups),
  matchedAt: m.matchedAt,
  relevanceScore: m.relevance ? String(m.relevance.score) : "",
  relevanceLabel: m.relevance?.label ?? "",
  relevanceReasons: m.relevance ? m.relevance.reasons.map((r) => r.feature).join(";") : "",
  storyId: m.story?.id ?? "",
  storySize: m.story ? String(m.story.size) : "",
});

export const mentionCsvHeader = (): string => csvRecord(MENTION_CSV_COLUMNS);

export const mentionCsvRecord = (m: Mention, names: ExportNames): string => {
  const row = cells(m, names);
  return csvRecord(MENTION_CSV_COLUMNS.map((c) => row[c]));
};

export const mentionJsonLine = (m: Mention): string => `${JSON.stringify(m)}\n`;
