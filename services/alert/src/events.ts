import { stageEvent, type StagedEvent } from "@earshot/platform/core";
import type { AlertDoc } from "./store";
import { ALERT_EVENTS, type AlertDeleted, type AlertRuleChanged } from "@earshot/contracts/events/alert";

// The alert service's events: the builders its domain stages through the outbox. The catalog and the
// decoded event types are the contract layer's (`@earshot/contracts/events`), re-exported here for this
// service's own code; other services read them from the contract layer.

export * from "@earshot/contracts/events/alert";

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
    ...(a.filters.minRelevance !== undefined ? { minRelevance: a.filters.minRelevance } : {}),
    isDefault: a.kind === "daily_digest",
    createdAt: a.createdAt.toISOString(),
    fields,
  });

export const alertDeletedEvent = (a: AlertDoc): StagedEvent<AlertDeleted> =>
  stageEvent(ALERT_EVENTS, "alert.deleted", ofAlert(a), { alertId: a._id, projectId: a.projectId, workspaceId: a.workspaceId });
