import type { CloudEvent } from "@earshot/platform/core";
import { isUniqueViolation, isVersionConflict, newId } from "@earshot/platform/core";
import { subscribesTo, TEST_EVENT_TYPE } from "@earshot/webhook/fields";
import type { RedeliveryRequested, TestRequested } from "@earshot/webhook/events";
import { deliveryRecordedEvent } from "../events";
import { DELIVERIES, type DeliveryDoc, type EndpointCopyDoc } from "../store";
import type { DeliveryDeps } from "./deps";

// Turning events into deliveries: each deliverable event goes to every active endpoint of its workspace
// whose scope (the workspace, or the event's project) and event types match; a test event to exactly the
// endpoint it names. A delivery is created once per (endpoint, event) however often the event arrives,
// with its payload fixed, so every attempt and redelivery sends the same bytes under the same webhook-id.

/** The Standard Webhooks payload: `{ type, timestamp, data }`. */
export const payloadOf = (type: string, timestamp: string, data: unknown): string => JSON.stringify({ type, timestamp, data });

const newDelivery = (deps: DeliveryDeps, endpoint: EndpointCopyDoc, eventId: string, eventType: string, body: string): DeliveryDoc => {
  const now = deps.clock.now();
  return {
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
    nextAttemptAt: new Date(now.getTime() + (deps.schedule[0] ?? 0) * 1000),
    charged: false,
    headers: {},
  };
};

/** Commits the deliveries; false when one of them was made already (nothing of this commit happened). */
const commitDeliveries = async (deps: DeliveryDeps, deliveries: DeliveryDoc[]): Promise<boolean> => {
  try {
    await deps.outbox.commit(
      deliveries.map((doc) => ({ kind: "insert", collection: DELIVERIES, doc })),
      deliveries.map((d) => deliveryRecordedEvent(d)),
    );
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return false;
  }
};

/**
 * One delivery per endpoint, made once per (endpoint, event) however often the event arrives. All of an
 * event's deliveries go in one commit (one write to the store instead of one per endpoint); when some were
 * made already, by an earlier handling of the same event, the others are made one by one.
 */
const createDeliveries = async (deps: DeliveryDeps, endpoints: EndpointCopyDoc[], eventId: string, eventType: string, body: string): Promise<void> => {
  const deliveries = endpoints.map((e) => newDelivery(deps, e, eventId, eventType, body));
  if (deliveries.length === 0) return;
  if (!(await commitDeliveries(deps, deliveries)) && deliveries.length > 1) {
    for (const d of deliveries) await commitDeliveries(deps, [d]);
  }
  deps.wake();
};

const deactivated = async (deps: DeliveryDeps, workspaceId: string): Promise<boolean> =>
  (await deps.collections.workspaces.findById(workspaceId))?.deactivated === true;

/** A published event (project, keyword, mention, LinkedIn): one delivery per matching endpoint. */
export const fanOut = async (deps: DeliveryDeps, event: CloudEvent): Promise<void> => {
  const data = (event.data ?? {}) as { workspaceId?: unknown; projectId?: unknown };
  const workspaceId = typeof data.workspaceId === "string" ? data.workspaceId : "";
  const projectId = typeof data.projectId === "string" ? data.projectId : "";
  if (!workspaceId || (await deactivated(deps, workspaceId))) return;
  const endpoints = await deps.collections.endpoints.find({ workspaceId, active: true });
  const matching = endpoints.filter((e) => (e.projectId === null || e.projectId === projectId) && subscribesTo(e.eventTypes, event.type));
  if (matching.length === 0) return;
  const body = payloadOf(event.type, event.time, event.data);
  await createDeliveries(deps, matching, event.id, event.type, body);
};

/** test_webhook: one `webhook.test` event to exactly that endpoint (whatever its event types). */
export const sendTest = async (deps: DeliveryDeps, request: TestRequested): Promise<void> => {
  const endpoint = await deps.collections.endpoints.findById(request.endpointId);
  if (!endpoint) return;
  const body = payloadOf(TEST_EVENT_TYPE, request.requestedAt, {
    webhookId: endpoint._id,
    message: "A test event sent by test_webhook. Verify its signature with the endpoint's secret.",
  });
  await createDeliveries(deps, [endpoint], request.eventId, TEST_EVENT_TYPE, body);
};

/** redeliver_webhook_delivery: the same delivery again from the first step of the schedule, counted as a new send. */
export const redeliver = async (deps: DeliveryDeps, request: RedeliveryRequested): Promise<void> => {
  for (let round = 0; round < 5; round++) {
    const current = await deps.collections.deliveries.findById(request.deliveryId);
    if (!current || current.endpointId !== request.endpointId) return;
    const next: DeliveryDoc = { ...current, status: "pending", step: 0, charged: false, nextAttemptAt: deps.clock.now(), _v: (current._v ?? 1) + 1 };
    try {
      await deps.outbox.commit([{ kind: "replace", collection: DELIVERIES, doc: next, expectedVersion: current._v ?? 1 }], [deliveryRecordedEvent(next)]);
      deps.wake();
      return;
    } catch (err) {
      // An attempt finished meanwhile: read it again and reset that.
      if (!isVersionConflict(err)) throw err;
    }
  }
};
