import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf, stageEvent, type StagedEvent } from "@earshot/platform/core";
import { mentionV1Events } from "@earshot/proto";
import type { MentionDoc } from "./store";

// The mention service's events, published as `@earshot/mention/events`: the catalog (topic
// `earshot.mention.v1`, source `earshot/mention`, and each type's message in events.proto), the builders
// the domain stages through the outbox in the same commit as the change, and the decoded event type
// consumers receive, with its decoder. Keyed by project id so one project's events keep their order; `data` is the proto
// JSON form of the type's message.
// - `mention.created` carries the mention as the API presents it, with the names of its keywords and
//   groups, so a consumer that tells a person about it (a webhook, an alert) never reads it back. Its
//   size is bounded as the mention is: the post limits cap title and text, the matcher caps matches.
// - `mention.updated`: a person changed a mention's status or category; the mention as it is after the
//   change, and which fields changed.

export const MENTION_EVENTS = defineEventCatalog("mention", {
  "mention.created": mentionV1Events.MentionCreated,
  "mention.updated": mentionV1Events.MentionUpdated,
});

export const MENTION_TOPIC = MENTION_EVENTS.topic;
export const MENTION_EVENT_SOURCE = MENTION_EVENTS.source;
export const MENTION_EVENT_TYPES = MENTION_EVENTS.types;
export type MentionEventType = (typeof MENTION_EVENT_TYPES)[number];
/** A mention event as a consumer receives it, its data decoded; narrow on `type`. */
export type MentionEvent = EventOf<typeof MENTION_EVENTS>;
/** An event of this topic read with its type's message; undefined for a type the catalog does not know. */
export const decodeMentionEvent = (event: CloudEvent): MentionEvent | undefined => decodeEvent(MENTION_EVENTS, event);

export type MentionCreated = mentionV1Events.MentionCreated;
export type MentionUpdated = mentionV1Events.MentionUpdated;

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
