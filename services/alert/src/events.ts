import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf, stageEvent, type StagedEvent } from "@earshot/platform/core";
import { alertV1Events } from "@earshot/proto";
import type { AlertDoc } from "./store";

// The alert service's events, published as `@earshot/alert/events`: the catalog (topic `earshot.alert.v1`,
// source `earshot/alert`, and each type's message in events.proto), the builders the domain stages through
// the outbox, and the decoded event type consumers receive. Keyed by project id so one project's rules keep
// their order. `alert.created` and `alert.updated` carry the whole rule, so the digest service keeps its
// own copy of every rule from them and never asks this service.

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

const ofAlert = (a: AlertDoc) => ({ key: a.projectId, subject: a._id });

export const alertChangedEvent = (type: "alert.created" | "alert.updated", a: AlertDoc, fields: string[] = []): StagedEvent<AlertRuleChanged> =>
  stageEvent(ALERT_EVENTS, type, ofAlert(a), {
    alertId: a._id,
    projectId: a.projectId,
    workspaceId: a.workspaceId,
    name: a.name,
    active: a.active,
    digestEnabled: a.digest.enabled,
    digestHour: a.digest.hour,
    instant: a.instant,
    keywordIds: [...a.filters.keywordIds],
    groupIds: [...a.filters.groupIds],
    sources: [...a.filters.sources],
    sentiments: [...a.filters.sentiments],
    isDefault: a.kind === "daily_digest",
    createdAt: a.createdAt.toISOString(),
    fields,
  });

export const alertDeletedEvent = (a: AlertDoc): StagedEvent<AlertDeleted> =>
  stageEvent(ALERT_EVENTS, "alert.deleted", ofAlert(a), { alertId: a._id, projectId: a.projectId, workspaceId: a.workspaceId });
