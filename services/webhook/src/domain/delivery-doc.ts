import { newId } from "@earshot/platform/core";
import { isChatFormat } from "../fields";
import type { DeliveryDoc, EndpointDoc } from "../store";

// A new delivery, as the fan-out makes one for a published event and test_webhook for its test event: its
// payload fixed once, so every attempt and redelivery sends the same bytes under the same webhook-id.

/**
 * The Standard Webhooks payload: `{ type, timestamp, data }`, and `context` beside `data` when the event
 * says more than the resource (test events do not).
 */
export const payloadOf = (type: string, timestamp: string, data: unknown, context: Record<string, unknown> = {}): string =>
  JSON.stringify(Object.keys(context).length > 0 ? { type, timestamp, data, context } : { type, timestamp, data });

/** A pending delivery of `eventId` to `endpoint`, first due `firstDelaySeconds` after `now`; a chat endpoint's body is its chat message. */
export const newDelivery = (now: Date, endpoint: EndpointDoc, eventId: string, eventType: string, body: string, firstDelaySeconds: number): DeliveryDoc => ({
  _id: newId("dlv", now.getTime()),
  _v: 1,
  dedupeKey: `${endpoint._id}:${eventId}`,
  endpointId: endpoint._id,
  workspaceId: endpoint.workspaceId,
  eventId,
  eventType,
  body,
  status: "pending",
  step: 0,
  attempts: [],
  createdAt: now,
  nextAttemptAt: new Date(now.getTime() + firstDelaySeconds * 1000),
  charged: false,
  headers: {},
  ...(isChatFormat(endpoint.format) ? { chat: endpoint.format } : {}),
});
