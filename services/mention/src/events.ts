import { stageEvent, type StagedEvent } from "@earshot/platform/core";
import type { MentionDoc } from "./store";
import { MENTION_EVENTS, type MentionCreated, type MentionUpdated } from "@earshot/contracts/events/mention";

// The mention service's events: the builders its domain stages through the outbox. The catalog and the
// decoded event types are the contract layer's (`@earshot/contracts/events`), re-exported here for this
// service's own code; other services read them from the contract layer.

export * from "@earshot/contracts/events/mention";

/** What the mention service last heard the keywords and groups of a mention are called. */
export interface MentionNames {
  keywords: ReadonlyMap<string, { value: string; groupId: string }>;
  groups: ReadonlyMap<string, string>;
}

/** int64 fields travel as decimal strings in the proto JSON form. */
const int64 = (n: number): string => String(n);

export const mentionCreatedEvent = (m: MentionDoc, names: MentionNames): StagedEvent<MentionCreated> =>
  stageEvent(MENTION_EVENTS, "mention.created", { key: m.projectId, subject: m._id }, {
    mentionId: m._id,
    projectId: m.projectId,
    workspaceId: m.workspaceId,
    source: m.source,
    sourceId: m.sourceId,
    url: m.url,
    title: m.title,
    text: m.text,
    author: {
      id: m.author.id,
      handle: m.author.handle,
      name: m.author.name,
      url: m.author.url,
      followers: m.author.followers === undefined ? undefined : int64(m.author.followers),
    },
    publishedAt: m.publishedAt.toISOString(),
    lang: m.lang,
    parentId: m.parentId,
    metrics: m.metrics && {
      likes: int64(m.metrics.likes),
      replies: int64(m.metrics.replies),
      shares: int64(m.metrics.shares),
      views: int64(m.metrics.views),
    },
    keywordIds: [...m.keywordIds],
    groupIds: [...m.groupIds],
    keywords: m.keywordIds.map((keywordId) => {
      const named = names.keywords.get(keywordId);
      return { keywordId, value: named?.value ?? "", groupId: named?.groupId ?? "" };
    }),
    groups: m.groupIds.map((groupId) => ({ groupId, name: names.groups.get(groupId) ?? "" })),
    matches: m.matches.map((t) => ({ keywordId: t.keywordId, term: t.term, field: t.field, start: t.start, end: t.end })),
    sentiment: { label: m.sentiment.label, score: m.sentiment.score, method: m.sentiment.method },
    status: m.status,
    collectedAt: m.collectedAt.toISOString(),
    matchedAt: m.matchedAt.toISOString(),
  });

export const mentionUpdatedEvent = (m: MentionDoc, fields: Array<"status" | "categoryId">, byUserId: string): StagedEvent<MentionUpdated> =>
  stageEvent(MENTION_EVENTS, "mention.updated", { key: m.projectId, subject: m._id }, {
    mentionId: m._id,
    projectId: m.projectId,
    workspaceId: m.workspaceId,
    fields: [...fields],
    status: m.status,
    categoryId: m.categoryId ?? "",
    byUserId,
  });
