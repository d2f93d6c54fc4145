import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf } from "@earshot/platform/core";
import { deliveryV1Events } from "@earshot/proto";

// The delivery service's events (topic `earshot.delivery.v1`), published as
// `@earshot/webhook/delivery-events`. The catalog lives beside the webhook service's own because the two
// services are one contract split in two deployables: the delivery service consumes the webhook events and
// this service consumes these, so either package holding both catalogs would make the packages depend on
// each other. The delivery service stages them (its `events.ts` has the builders); this service keeps its
// delivery log, and the endpoints' failure deactivations, from them.

export const DELIVERY_EVENTS = defineEventCatalog("delivery", {
  "delivery.recorded": deliveryV1Events.DeliveryRecorded,
  "delivery.endpoint_failing": deliveryV1Events.EndpointFailing,
});

export const DELIVERY_TOPIC = DELIVERY_EVENTS.topic;
export type DeliveryEvent = EventOf<typeof DELIVERY_EVENTS>;
export const decodeDeliveryEvent = (event: CloudEvent): DeliveryEvent | undefined => decodeEvent(DELIVERY_EVENTS, event);

export type DeliveryRecorded = deliveryV1Events.DeliveryRecorded;
export type EndpointFailing = deliveryV1Events.EndpointFailing;
export type DeliveryAttemptMessage = deliveryV1Events.Attempt;
