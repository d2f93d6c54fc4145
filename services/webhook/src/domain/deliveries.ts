import { isUniqueViolation, isVersionConflict, notFound, type Page, pageLimit, validationFailed, withCursorErrors } from "@earshot/platform/core";
import type { DeliveryEvent } from "../delivery-events";
import type { Write } from "@earshot/platform/core";
import { endpointEvent, redeliveryRequestedEvent } from "../events";
import { DELIVERY_STATUSES, type DeliveryStatus } from "../fields";
import { DELIVERIES, ENDPOINTS, type DeliveryLogDoc, type EndpointDoc } from "../store";
import { loadEndpoint } from "./access";
import type { Caller, WebhookDeps } from "./deps";

// The delivery log: the delivery service reports every change of a delivery (`delivery.recorded`) and this
// service keeps the newest report of each, for list_webhook_deliveries and get_webhook_delivery. A
// redelivery is asked of the delivery service by an event, in the endpoint's order.

export interface ListDeliveriesInput {
  status?: string;
  eventType?: string;
  since?: Date;
  limit?: number;
  cursor?: string;
}

export const listDeliveries = async (deps: WebhookDeps, caller: Caller, endpointId: string, input: ListDeliveriesInput): Promise<Page<DeliveryLogDoc>> => {
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

const loadDelivery = async (deps: WebhookDeps, endpoint: EndpointDoc, deliveryId: string): Promise<DeliveryLogDoc> => {
  const delivery = await deps.collections.deliveries.findById(deliveryId);
  if (!delivery || delivery.endpointId !== endpoint._id) throw notFound("Delivery");
  return delivery;
};

export const getDelivery = async (deps: WebhookDeps, caller: Caller, endpointId: string, deliveryId: string): Promise<DeliveryLogDoc> =>
  loadDelivery(deps, await loadEndpoint(deps, caller, endpointId, "viewer"), deliveryId);

/**
 * Sends a delivery's event again, with the same webhook-id. The answer shows it pending; the delivery
 * service's next report replaces that with what happened.
 */
export const redeliver = async (deps: WebhookDeps, caller: Caller, endpointId: string, deliveryId: string): Promise<DeliveryLogDoc> => {
  const endpoint = await loadEndpoint(deps, caller, endpointId, "editor");
  const delivery = await loadDelivery(deps, endpoint, deliveryId);
  const now = deps.clock.now();
  await deps.outbox.commit([], [redeliveryRequestedEvent(endpoint, delivery._id)]);
  await deps.collections.deliveries.updateOne({ _id: delivery._id, version: delivery.version }, { $set: { status: "pending", nextAttemptAt: now } });
  return { ...delivery, status: "pending", nextAttemptAt: now };
};

const dateOrUndefined = (iso: string): Date | undefined => (iso ? new Date(iso) : undefined);

type Recorded = Extract<DeliveryEvent, { type: "delivery.recorded" }>["data"];

const logOf = (d: Recorded): Omit<DeliveryLogDoc, "_v"> => ({
  _id: d.deliveryId,
  endpointId: d.endpointId,
  workspaceId: d.workspaceId,
  eventId: d.eventId,
  eventType: d.eventType,
  status: (DELIVERY_STATUSES.includes(d.status as DeliveryStatus) ? d.status : "pending") as DeliveryStatus,
  attempts: d.attempts.map((a) => ({ at: new Date(a.at), statusCode: a.statusCode, durationMs: a.durationMs, response: a.response, error: a.error })),
  createdAt: new Date(d.createdAt),
  nextAttemptAt: dateOrUndefined(d.nextAttemptAt),
  requestHeaders: { ...d.requestHeaders },
  requestBody: d.requestBody,
  budgetDay: d.budgetDay || undefined,
  version: Number(d.version),
});

/** Keeps the newest report of a delivery whose endpoint still exists (a late report of a deleted one is dropped). */
const recordDelivery = async (deps: WebhookDeps, d: Recorded): Promise<void> => {
  if (!(await deps.collections.endpoints.findById(d.endpointId))) return;
  const doc = logOf(d);
  const { _id, ...fields } = doc;
  const updated = await deps.collections.deliveries.updateOne({ _id, version: { $lt: doc.version } }, { $set: fields });
  if (updated.matchedCount > 0) return;
  try {
    await deps.collections.deliveries.insertOne(doc as DeliveryLogDoc);
  } catch (err) {
    // It exists at this version or a newer one: the newer report stays.
    if (!isUniqueViolation(err)) throw err;
  }
};

/**
 * The reports of a batch as `recordDelivery` keeps them one by one, in one commit: the newest report of each
 * delivery, read against the stored logs and endpoints with one read each. When the commit clashes with a
 * write made meanwhile (another consumer of the group), each report is kept one by one.
 */
const recordDeliveries = async (deps: WebhookDeps, reports: Recorded[]): Promise<void> => {
  const newest = new Map<string, Omit<DeliveryLogDoc, "_v">>();
  for (const report of reports) {
    const doc = logOf(report);
    const seen = newest.get(doc._id);
    if (!seen || seen.version < doc.version) newest.set(doc._id, doc);
  }
  const docs = [...newest.values()];
  const endpointIds = [...new Set(docs.map((d) => d.endpointId))];
  const live = new Set((await deps.collections.endpoints.find({ _id: { $in: endpointIds } })).map((e) => e._id));
  const stored = new Map((await deps.collections.deliveries.find({ _id: { $in: docs.map((d) => d._id) } })).map((d) => [d._id, d]));
  const writes: Write[] = [];
  for (const doc of docs) {
    if (!live.has(doc.endpointId)) continue;
    const before = stored.get(doc._id);
    if (!before) writes.push({ kind: "insert", collection: DELIVERIES, doc: { ...doc, _v: 1 } });
    else if (before.version < doc.version) writes.push({ kind: "replace", collection: DELIVERIES, doc: { ...doc, _v: (before._v ?? 1) + 1 }, expectedVersion: before._v ?? 1 });
  }
  if (writes.length === 0) return;
  try {
    await deps.outbox.commit(writes, []);
  } catch (err) {
    if (!isUniqueViolation(err) && !isVersionConflict(err)) throw err;
    for (const report of reports) await recordDelivery(deps, report);
  }
};

/** Five days of failed deliveries: the delivery service stopped sending; the endpoint shows inactive. */
const deactivateFailing = async (deps: WebhookDeps, endpointId: string): Promise<void> => {
  const current = await deps.collections.endpoints.findById(endpointId);
  if (!current || !current.active) return;
  const next: EndpointDoc = { ...current, active: false, deactivatedReason: "failing", updatedAt: deps.clock.now(), _v: (current._v ?? 1) + 1 };
  await deps.outbox.commit([{ kind: "replace", collection: ENDPOINTS, doc: next, expectedVersion: current._v ?? 1 }], [endpointEvent("webhook.endpoint.saved", next)]);
};

/**
 * A batch of the delivery service's reports: the delivery log's in one commit, then each deactivation in
 * order. Handling a batch again (a redelivery) changes nothing: a report never replaces a newer one.
 */
export const handleDeliveryEvents = async (deps: WebhookDeps, events: DeliveryEvent[]): Promise<void> => {
  const recorded = events.flatMap((e) => (e.type === "delivery.recorded" ? [e.data] : []));
  if (recorded.length > 0) await recordDeliveries(deps, recorded);
  for (const event of events) if (event.type === "delivery.endpoint_failing") await deactivateFailing(deps, event.data.endpointId);
};

export const handleDeliveryEvent = async (deps: WebhookDeps, event: DeliveryEvent): Promise<void> => {
  switch (event.type) {
    case "delivery.recorded":
      return recordDelivery(deps, event.data);
    case "delivery.endpoint_failing":
      return deactivateFailing(deps, event.data.endpointId);
    default:
      return;
  }
};
