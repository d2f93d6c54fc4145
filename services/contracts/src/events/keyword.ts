import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf } from "@earshot/platform/core";
import { keywordV1Events } from "@earshot/proto";

// The keyword service's events (topic `earshot.keyword.v1`, source `earshot/keyword`): the catalog, each
// type's message in proto/earshot/keyword/v1/events.proto, and the decoded event type consumers receive,
// with its decoder. Keyed by project id so one project's changes keep their order. A keyword event carries
// the whole keyword as it is after the change, so consumers (the matcher, the collectors) keep their own
// copy without calling back.
// Its producer stages them with its own builders; every consumer reads the catalog from here, so no
// service depends on another to read its events.

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
