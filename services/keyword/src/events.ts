import type { StagedEvent } from "@earshot/platform";
import type { keywordV1Events } from "@earshot/proto";
import type { KeywordDoc, KeywordGroupDoc } from "./store";

// The keyword service's events, through the outbox to `earshot.keyword.v1` (the Outbox derives the topic
// from the service name), keyed by project id so one project's changes keep their order. `data` is the proto
// JSON form of the events.proto message; a keyword event carries the whole keyword as it is after the
// change, so consumers (the matcher, the collectors) keep their own copy without calling back.

export const KEYWORD_EVENT_SOURCE = "earshot/keyword";

export const KEYWORD_EVENT_TYPES = [
  "keyword.created",
  "keyword.updated",
  "keyword.deactivated",
  "keyword_group.created",
  "keyword_group.updated",
  "keyword_group.deleted",
] as const;

export type KeywordEventType = (typeof KEYWORD_EVENT_TYPES)[number];

const event = <D>(type: KeywordEventType, projectId: string, subject: string, data: D): StagedEvent<D> => ({
  type,
  source: KEYWORD_EVENT_SOURCE,
  subject,
  key: projectId,
  data,
});

export const keywordEvent = (
  type: Extract<KeywordEventType, `keyword.${string}`>,
  k: KeywordDoc,
  fields: string[] = [],
): StagedEvent<keywordV1Events.KeywordChanged> =>
  event(type, k.projectId, k._id, {
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

export const groupEvent = (
  type: Extract<KeywordEventType, `keyword_group.${string}`>,
  g: KeywordGroupDoc,
  fields: string[] = [],
): StagedEvent<keywordV1Events.KeywordGroupChanged> =>
  event(type, g.projectId, g._id, {
    groupId: g._id,
    projectId: g.projectId,
    workspaceId: g.workspaceId,
    name: g.name,
    order: g.order,
    isDefault: g.kind !== "custom",
    fields,
  });
