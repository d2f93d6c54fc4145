import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf } from "@earshot/platform/core";
import { mentionV1Events } from "@earshot/proto";

// The mention service's events (topic `earshot.mention.v1`, source `earshot/mention`): the catalog, each
// type's message in proto/earshot/mention/v1/events.proto, and the decoded event type consumers receive,
// with its decoder. Keyed by project id so one project's events keep their order.
// - `mention.created` carries the mention as the API presents it, with the names of its keywords and
//   groups, so a consumer that tells a person about it (a webhook, an alert) never reads it back.
// - `mention.updated`: a person changed a mention's status or category; the mention as it is after the
//   change, and which fields changed.
// Its producer stages them with its own builders; every consumer reads the catalog from here, so no
// service depends on another to read its events.

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
