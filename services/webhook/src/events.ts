import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf, stageEvent, type StagedEvent } from "@earshot/platform/core";
import { webhookV1Events } from "@earshot/proto";
import type { EndpointDoc } from "./store";

// The webhook service's events, published as `@earshot/webhook/events`: the catalog (topic
// `earshot.webhook.v1`, source `earshot/webhook`), the builders its verbs stage and the decoded event type.
// Keyed by endpoint id so one endpoint's changes, test sends and redeliveries keep their order. They are
// the delivery service's input, never sent to a receiver: the endpoint as it is after each change (with
// its secrets sealed, never in plain), and the requests to send a test event or a delivery again.

export const WEBHOOK_EVENTS = defineEventCatalog("webhook", {
  "webhook.endpoint.saved": webhookV1Events.EndpointChanged,
  "webhook.endpoint.deleted": webhookV1Events.EndpointChanged,
  "webhook.test_requested": webhookV1Events.TestRequested,
  "webhook.redelivery_requested": webhookV1Events.RedeliveryRequested,
});

export const WEBHOOK_TOPIC = WEBHOOK_EVENTS.topic;
export type WebhookEventType = (typeof WEBHOOK_EVENTS.types)[number];
/** A webhook service event as a consumer receives it, its data decoded; narrow on `type`. */
export type WebhookEvent = EventOf<typeof WEBHOOK_EVENTS>;
export const decodeWebhookEvent = (event: CloudEvent): WebhookEvent | undefined => decodeEvent(WEBHOOK_EVENTS, event);

export type EndpointChanged = webhookV1Events.EndpointChanged;
export type TestRequested = webhookV1Events.TestRequested;
export type RedeliveryRequested = webhookV1Events.RedeliveryRequested;

const ofEndpoint = (endpointId: string) => ({ key: endpointId, subject: endpointId });

export const endpointEvent = (type: "webhook.endpoint.saved" | "webhook.endpoint.deleted", e: EndpointDoc): StagedEvent<EndpointChanged> =>
  stageEvent(WEBHOOK_EVENTS, type, ofEndpoint(e._id), {
    endpointId: e._id,
    workspaceId: e.workspaceId,
    projectId: e.projectId ?? "",
    url: e.url,
    eventTypes: [...e.eventTypes],
    active: e.active,
    secrets: e.secrets.map((s) => ({ sealed: s.sealed, expiresAt: s.expiresAt ? s.expiresAt.toISOString() : "" })),
    version: String(e._v ?? 1),
    dailyBudget: e.dailyBudget,
  });

export const testRequestedEvent = (e: EndpointDoc, eventId: string, requestedAt: Date): StagedEvent<TestRequested> =>
  stageEvent(WEBHOOK_EVENTS, "webhook.test_requested", ofEndpoint(e._id), {
    endpointId: e._id,
    workspaceId: e.workspaceId,
    eventId,
    requestedAt: requestedAt.toISOString(),
  });

export const redeliveryRequestedEvent = (e: EndpointDoc, deliveryId: string): StagedEvent<RedeliveryRequested> =>
  stageEvent(WEBHOOK_EVENTS, "webhook.redelivery_requested", ofEndpoint(e._id), { endpointId: e._id, workspaceId: e.workspaceId, deliveryId });
