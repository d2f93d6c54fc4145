import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf, stageEvent, type StagedEvent } from "@earshot/platform/core";
import { keywordV1Events } from "@earshot/proto";
import type { KeywordDoc, KeywordGroupDoc } from "./store";

// The keyword service's events, published as `@earshot/keyword/events`: the catalog (topic
// `earshot.keyword.v1`, source `earshot/keyword`, and each type's message in events.proto), the builders
// the domain stages through the outbox, and the decoded event type consumers receive, with its decoder.
// Keyed by project id so one project's changes keep their order; `data` is the proto JSON form of the
// type's message. A keyword event carries the whole keyword as it is after the change, so consumers (the
// matcher, the collectors) keep their own copy without calling back.

export const KEYWORD_EVENTS = defineEventCatalog("keyword", {
  "keyword.created": keywordV1Events.KeywordChanged,
  "keyword.updated": keywordV1Events.KeywordChanged,
  "keyword.deactivated": keywordV1Events.KeywordChanged,
  "keyword_group.created": keywordV1Events.KeywordGroupChanged,
  "keyword_group.updated": keywordV1Events.KeywordGroupChanged,
  "keyword_group.deleted": keywordV1Events.KeywordGroupChanged,
});

export const KEYWORD_TOPIC = KEYWORD_EVENTS.topic;
export const KEYWORD_EVENT_SOURCE = KEYWORD_EVENTS.source;
export const KEYWORD_EVENT_TYPES = KEYWORD_EVENTS.types;
export type KeywordEventType = (typeof KEYWORD_EVENT_TYPES)[number];
/** The types about a keyword (`keyword.*`) and about a group (`keyword_group.*`). */
export type KeywordChangeType = Extract<KeywordEventType, `keyword.${string}`>;
export type GroupChangeType = Extract<KeywordEventType, `keyword_group.${string}`>;
/** A keyword service event as a consumer receives it, its data decoded; narrow on `type`. */
export type KeywordEvent = EventOf<typeof KEYWORD_EVENTS>;
/** An event of this topic read with its type's message; undefined for a type the catalog does not know. */
export const decodeKeywordEvent = (event: CloudEvent): KeywordEvent | undefined => decodeEvent(KEYWORD_EVENTS, event);

export type KeywordChanged = keywordV1Events.KeywordChanged;
export type KeywordGroupChanged = keywordV1Events.KeywordGroupChanged;

export const keywordEvent = (type: KeywordChangeType, k: KeywordDoc, fields: string[] = []): StagedEvent<KeywordChanged> =>
  stageEvent(KEYWORD_EVENTS, type, { key: k.projectId, subject: k._id }, {
    keywordId: k._id,
    projectId: k.projectId,
    workspaceId: k.workspaceId,
    groupId: k.groupId,
    value: k.value,
    sources: [...k.sources],
    aliases: [...k.aliases],
    excludedTerms: [...k.excludedTerms],
    filters: {
      languages: [...(k.filters.languages ?? [])],
      minFollowers: k.filters.minFollowers,
      excludeAuthors: [...(k.filters.excludeAuthors ?? [])],
      subreddits: [...(k.filters.subreddits ?? [])],
      youtubeChannels: [...(k.filters.youtubeChannels ?? [])],
      allOf: [...(k.filters.allOf ?? [])],
    },
    caseSensitive: k.caseSensitive,
    active: k.active,
    fields,
    updatedAt: k.updatedAt.toISOString(),
  });

export const groupEvent = (type: GroupChangeType, g: KeywordGroupDoc, fields: string[] = []): StagedEvent<KeywordGroupChanged> =>
  stageEvent(KEYWORD_EVENTS, type, { key: g.projectId, subject: g._id }, {
    groupId: g._id,
    projectId: g.projectId,
    workspaceId: g.workspaceId,
    name: g.name,
    order: g.order,
    isDefault: g.kind !== "custom",
    fields,
  });
