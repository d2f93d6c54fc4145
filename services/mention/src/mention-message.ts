import { enumValueOf, SOURCE_WORDS } from "@earshot/platform";
import { type commonV1, mentionV1 } from "@earshot/proto";
import { firstMentionIdOf, storySizeOf } from "./domain/stories/assign-stories";
import { MENTION_STATUS_WORDS, RELEVANCE_LABEL_WORDS } from "./filters";
import type { MentionDoc } from "./store";

// A mention as a gRPC message: what the API's reads answer (lists without the history) and what the
// `mention.*` events carry, so a webhook's data is what get_mention presents.

const int64 = (n: number | undefined) => (n === undefined ? undefined : String(n));

export const toMentionMessage = (m: Omit<MentionDoc, "history"> | MentionDoc): mentionV1.Mention => ({
  id: m._id,
  projectId: m.projectId,
  source: SOURCE_WORDS.value(m.source) ?? (0 as commonV1.Source),
  sourceId: m.sourceId,
  url: m.url,
  title: m.title,
  text: m.text,
  author: { id: m.author.id, handle: m.author.handle, name: m.author.name, url: m.author.url, followers: int64(m.author.followers) },
  publishedAt: m.publishedAt,
  lang: m.lang,
  parentId: m.parentId,
  metrics: m.metrics
    ? { likes: String(m.metrics.likes), replies: String(m.metrics.replies), shares: String(m.metrics.shares), views: String(m.metrics.views) }
    : undefined,
  keywordIds: [...m.keywordIds],
  groupIds: [...m.groupIds],
  matches: m.matches.map((t) => ({ keywordId: t.keywordId, term: t.term, field: t.field, start: t.start, end: t.end })),
  sentiment: { label: m.sentiment.label, score: m.sentiment.score, method: m.sentiment.method },
  status: enumValueOf(MENTION_STATUS_WORDS, m.status),
  categoryId: m.categoryId ?? "",
  collectedAt: m.collectedAt,
  matchedAt: m.matchedAt,
  updatedAt: m.updatedAt,
  story: m.storyId ? { id: m.storyId, size: storySizeOf(m), firstMentionId: firstMentionIdOf(m.storyId) } : undefined,
  relevance: m.relevance
    ? { score: m.relevance.score, label: enumValueOf(RELEVANCE_LABEL_WORDS, m.relevance.label), reasons: m.relevance.reasons.map((r) => ({ ...r })), model: m.relevance.model }
    : undefined,
  feedback: m.feedback ? { relevant: m.feedback.relevant, reason: m.feedback.reason, byUserId: m.feedback.byUserId, at: m.feedback.at } : undefined,
  history: "history" in m ? m.history.map((h) => ({ field: h.field, from: h.from, to: h.to, byUserId: h.byUserId, at: h.at })) : [],
});
