import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf } from "@earshot/platform/core";
import { alertV1Events } from "@earshot/proto";

// The alert service's events (topic `earshot.alert.v1`, source `earshot/alert`): the catalog, each type's
// message in proto/earshot/alert/v1/events.proto, and the decoded event type consumers receive. Keyed by
// project id so one project's rules keep their order. `alert.created` and `alert.updated` carry the whole
// rule, so the digest service keeps its own copy of every rule from them and never asks the alert service.
// Its producer stages them with its own builders; every consumer reads the catalog from here, so no
// service depends on another to read its events.

export const ALERT_EVENTS = defineEventCatalog("alert", {
  "alert.created": alertV1Events.AlertRuleChanged,
  "alert.updated": alertV1Events.AlertRuleChanged,
  "alert.deleted": alertV1Events.AlertDeleted,
});

export const ALERT_TOPIC = ALERT_EVENTS.topic;
export type AlertEventType = (typeof ALERT_EVENTS.types)[number];
/** An alert event as a consumer receives it, its data decoded; narrow on `type`. */
export type AlertEvent = EventOf<typeof ALERT_EVENTS>;
export const decodeAlertEvent = (event: CloudEvent): AlertEvent | undefined => decodeEvent(ALERT_EVENTS, event);

export type AlertRuleChanged = alertV1Events.AlertRuleChanged;
export type AlertDeleted = alertV1Events.AlertDeleted;
