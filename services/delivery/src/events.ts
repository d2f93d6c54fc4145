import { stageEvent, type StagedEvent } from "@earshot/platform/core";
import { DELIVERY_EVENTS, type DeliveryRecorded, type EndpointFailing } from "@earshot/webhook/delivery-events";
import type { DeliveryDoc, EndpointCopyDoc } from "./store";

// The delivery service's events (topic `earshot.delivery.v1`; the catalog is published with the webhook
// service's, see `@earshot/webhook/delivery-events`): every change of a delivery, so the webhook service
// keeps the log it serves, and an endpoint's failure deactivation. Keyed by endpoint id. The signature
// and the secrets are never in them.

export { DELIVERY_EVENTS };

const ofEndpoint = (endpointId: string, subject: string) => ({ key: endpointId, subject });

export const deliveryRecordedEvent = (d: DeliveryDoc): StagedEvent<DeliveryRecorded> =>
  stageEvent(DELIVERY_EVENTS, "delivery.recorded", ofEndpoint(d.endpointId, d._id), {
    deliveryId: d._id,
    endpointId: d.endpointId,
    workspaceId: d.workspaceId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts.map((a) => ({ at: a.at.toISOString(), statusCode: a.statusCode, durationMs: a.durationMs, response: a.response, error: a.error })),
    createdAt: d.createdAt.toISOString(),
    nextAttemptAt: d.nextAttemptAt && d.status !== "succeeded" && d.status !== "failed" ? d.nextAttemptAt.toISOString() : "",
    requestHeaders: { ...d.headers },
    requestBody: d.body,
    budgetDay: d.budgetDay ?? "",
    version: String(d._v ?? 1),
  });

export const endpointFailingEvent = (e: EndpointCopyDoc, since: Date): StagedEvent<EndpointFailing> =>
  stageEvent(DELIVERY_EVENTS, "delivery.endpoint_failing", ofEndpoint(e._id, e._id), {
    endpointId: e._id,
    workspaceId: e.workspaceId,
    failingSince: since.toISOString(),
  });
