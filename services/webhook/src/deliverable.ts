import { INTEGRATION_EVENTS, KEYWORD_EVENTS, MENTION_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import type { EventTypeOf } from "@earshot/platform/core";

// What an endpoint may subscribe to, derived from the event catalogs of the domains whose events are sent
// to receivers (projects, keywords and keyword groups, mentions, the LinkedIn integration): every type of
// those catalogs but the ones named internal below, each with the reason. A type added to one of these
// catalogs is deliverable unless it is named here (a test walks every catalog), so no list of literals
// drifts from what the services publish. Published as `@earshot/webhook/fields`.

export const DELIVERABLE_CATALOGS = [PROJECT_EVENTS, KEYWORD_EVENTS, MENTION_EVENTS, INTEGRATION_EVENTS] as const;

/** Types of the deliverable catalogs never sent to a receiver, and why. */
export const INTERNAL_EVENT_TYPES = {
  "project.dashboard_changed": "the public dashboard's address and state, for the edge's cache only",
  "member.invited": "speaks of people: an invitee's email address",
  "member.added": "speaks of people and their roles",
  "member.role_changed": "speaks of people and their roles",
  "member.removed": "speaks of people and their roles",
  "member.invite_revoked": "speaks of people: an invitee's email address",
  "post.collected": "every collected post, matched or not (mention.created is the matched one)",
} as const;

type CatalogType = EventTypeOf<(typeof DELIVERABLE_CATALOGS)[number]>;
export type WebhookEventType = Exclude<CatalogType, keyof typeof INTERNAL_EVENT_TYPES>;

const isDeliverable = (type: string): type is WebhookEventType => !Object.prototype.hasOwnProperty.call(INTERNAL_EVENT_TYPES, type);

/** The deliverable types, in the catalogs' order. */
export const WEBHOOK_EVENT_TYPES = DELIVERABLE_CATALOGS.flatMap((c) => c.types as readonly string[]).filter(isDeliverable) as [WebhookEventType, ...WebhookEventType[]];
