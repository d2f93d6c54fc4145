import { type Filter, InvalidCursorError } from "@earshot/platform/core";
import type { MentionDoc } from "../store";

// list_mentions with sort=relevance: highest relevance score first, then newest published, then id. The
// store's own paging orders by one field and the id, so this order pages itself: its cursor carries the
// whole sort key of the page's last mention (score, publishedAt, id) and the next page starts strictly
// after that key, exact while mentions arrive or are rescored elsewhere in the list.
//
// A mention stored before scoring has no score. Both adapters sort a missing field below every number, so
// such mentions come after all scored ones (newest first among themselves); the filters, not this order,
// count them as 0.5.

const SCORE = "relevance.score";

/** The store sort of the relevance order, served by the (projectId, relevance.score, publishedAt, _id) index. */
export const RELEVANCE_SORT: Record<string, -1> = { [SCORE]: -1, publishedAt: -1, _id: -1 };

interface RelevanceKey {
  score: number | null;
  publishedAt: Date;
  id: string;
}

const scoreOf = (doc: MentionDoc): number | null => {
  const score = (doc as { relevance?: { score?: unknown } }).relevance?.score;
  return typeof score === "number" ? score : null;
};

/** A cursor is tagged "r" so a newest-first cursor handed to this order is refused, not misread. */
export const encodeRelevanceCursor = (doc: MentionDoc): string =>
  Buffer.from(JSON.stringify(["r", scoreOf(doc), doc.publishedAt.toISOString(), doc._id]), "utf8").toString("base64url");

export const decodeRelevanceCursor = (cursor: string): RelevanceKey => {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== "r") throw new Error("shape");
    const [, score, at, id] = parsed as unknown[];
    const publishedAt = new Date(typeof at === "string" ? at : NaN);
    if ((score !== null && (typeof score !== "number" || !Number.isFinite(score))) || typeof id !== "string" || Number.isNaN(publishedAt.getTime())) {
      throw new Error("value");
    }
    return { score, publishedAt, id };
  } catch {
    throw new InvalidCursorError();
  }
};

/** The mentions strictly after `key` in the relevance order. */
export const afterRelevanceKey = (key: RelevanceKey): Filter => {
  const newer: Filter[] = [{ publishedAt: { $lt: key.publishedAt } }, { publishedAt: key.publishedAt, _id: { $lt: key.id } }];
  if (key.score === null) return { [SCORE]: { $exists: false }, $or: newer };
  return {
    $or: [
      { [SCORE]: { $lt: key.score } },
      { [SCORE]: key.score, publishedAt: { $lt: key.publishedAt } },
      { [SCORE]: key.score, publishedAt: key.publishedAt, _id: { $lt: key.id } },
      { [SCORE]: { $exists: false } },
    ],
  };
};

/** One page of `query` in the relevance order; one more row than the page is read to know whether another follows. */
export const findRelevancePage = async (
  mentions: { find(filter: Filter, options: { sort: Record<string, 1 | -1>; limit: number }): Promise<MentionDoc[]> },
  query: Filter,
  limit: number,
  cursor: string | null,
): Promise<{ items: MentionDoc[]; nextCursor: string | null }> => {
  const filter = cursor ? { $and: [query, afterRelevanceKey(decodeRelevanceCursor(cursor))] } : query;
  const rows = await mentions.find(filter, { sort: RELEVANCE_SORT, limit: limit + 1 });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeRelevanceCursor(last) : null };
};
