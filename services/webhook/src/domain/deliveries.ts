import { isVersionConflict, notFound, type Page, pageLimit, validationFailed, withCursorErrors } from "@earshot/platform/core";
import { DELIVERY_STATUSES, type DeliveryStatus } from "../fields";
import { DELIVERIES, type DeliveryDoc, type EndpointDoc } from "../store";
import { loadEndpoint } from "./access";
import type { Caller, WebhookDeps } from "./deps";

// The delivery log: the deliveries themselves, as the delivery worker makes, claims and records them in the
// same store. A redelivery is a write of the delivery (pending, due now), which the worker picks up at
// its next tick.

export interface ListDeliveriesInput {
  status?: string;
  eventType?: string;
  since?: Date;
  limit?: number;
  cursor?: string;
}

export const listDeliveries = async (deps: WebhookDeps, caller: Caller, endpointId: string, input: ListDeliveriesInput): Promise<Page<DeliveryDoc>> => {
  const limit = pageLimit(input.limit);
  if (input.status && !DELIVERY_STATUSES.includes(input.status as DeliveryStatus)) {
    throw validationFailed([{ path: "status", message: `must be one of ${DELIVERY_STATUSES.join(", ")}` }]);
  }
  const endpoint = await loadEndpoint(deps, caller, endpointId, "viewer");
  const filter = {
    endpointId: endpoint._id,
    ...(input.status ? { status: input.status } : {}),
    ...(input.eventType ? { eventType: input.eventType } : {}),
    ...(input.since ? { createdAt: { $gte: input.since } } : {}),
  };
  return withCursorErrors(() => deps.collections.deliveries.findPage(filter, { limit, cursor: input.cursor ?? null, sortField: "createdAt", direction: -1 }));
};

const loadDelivery = async (deps: WebhookDeps, endpoint: EndpointDoc, deliveryId: string): Promise<DeliveryDoc> => {
  const delivery = await deps.collections.deliveries.findById(deliveryId);
  if (!delivery || delivery.endpointId !== endpoint._id) throw notFound("Delivery");
  return delivery;
};

export const getDelivery = async (deps: WebhookDeps, caller: Caller, endpointId: string, deliveryId: string): Promise<DeliveryDoc> =>
  loadDelivery(deps, await loadEndpoint(deps, caller, endpointId, "viewer"), deliveryId);

/**
 * Sends a delivery's event again, with the same webhook-id and body, from the first step of the schedule,
 * counted as a new send against the daily budget. An attempt in flight when it is asked finds the delivery
 * changed and drops its outcome.
 */
export const redeliver = async (deps: WebhookDeps, caller: Caller, endpointId: string, deliveryId: string): Promise<DeliveryDoc> => {
  const endpoint = await loadEndpoint(deps, caller, endpointId, "editor");
  for (let round = 0; round < 5; round++) {
    const current = await loadDelivery(deps, endpoint, deliveryId);
    // A new send: a chat delivery's count of 429s waited out starts again too.
    const { rateLimitWaits: _waits, ...rest } = current;
    const next: DeliveryDoc = { ...rest, status: "pending", step: 0, charged: false, nextAttemptAt: deps.clock.now(), _v: (current._v ?? 1) + 1 };
    try {
      await deps.outbox.commit([{ kind: "replace", collection: DELIVERIES, doc: next, expectedVersion: current._v ?? 1 }], []);
      return next;
    } catch (err) {
      // An attempt's claim or outcome was written meanwhile: read it again and reset that.
      if (!isVersionConflict(err)) throw err;
    }
  }
  throw new Error(`delivery ${deliveryId} kept changing; try the redelivery again`);
};
