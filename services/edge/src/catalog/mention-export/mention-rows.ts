import type { Mention } from "../mentions/resource";
import { csvRecord } from "./csv";

// What export_mentions writes for each mention: a JSON line (the Mention list_mentions returns) or a CSV
// record of fixed columns.

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
  "sentiment",
  "keywordIds",
  "groupIds",
  "matchedAt",
] as const;

const cells = (m: Mention): Record<(typeof MENTION_CSV_COLUMNS)[number], string> => ({
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
  sentiment: m.sentiment.label,
  keywordIds: m.keywordIds.join(";"),
  groupIds: m.groupIds.join(";"),
  matchedAt: m.matchedAt,
});

export const mentionCsvHeader = (): string => csvRecord(MENTION_CSV_COLUMNS);

export const mentionCsvRecord = (m: Mention): string => {
  const row = cells(m);
  return csvRecord(MENTION_CSV_COLUMNS.map((c) => row[c]));
};

export const mentionJsonLine = (m: Mention): string => `${JSON.stringify(m)}\n`;
