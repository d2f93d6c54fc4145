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
 * One delivery per endpoint, made once per (endpoint, event) however often the event arrives. The
 * deliveries not made yet go in one commit (one write to the store, whatever the number of events and
 * endpoints); when a commit clashes with one made meanwhile (another instance handling the same event), the
 * rest are made one by one.
 */
const createDeliveries = async (deps: DeliveryDeps, deliveries: DeliveryDoc[]): Promise<void> => {
  if (deliveries.length === 0) return;
  // An event handled before (a redelivered batch) finds its deliveries made: one read for the whole batch.
  const made = new Set(
    (await deps.collections.deliveries.find({ dedupeKey: { $in: deliveries.map((d) => d.dedupeKey) } })).map((d) => d.dedupeKey),
  );
  const missing = deliveries.filter((d) => !made.has(d.dedupeKey));
  if (missing.length === 0) return;
  if (!(await commitDeliveries(deps, missing)) && missing.length > 1) {
    for (const d of missing) await commitDeliveries(deps, [d]);
  }
  deps.wake();
};

const idsOf = (event: CloudEvent): { workspaceId: string; projectId: string } => {
  const data = (event.data ?? {}) as { workspaceId?: unknown; projectId?: unknown };
  return {
    workspaceId: typeof data.workspaceId === "string" ? data.workspaceId : "",
    projectId: typeof data.projectId === "string" ? data.projectId : "",
  };
};

/**
 * Published events (project, keyword, mention, LinkedIn): one delivery per matching endpoint. A batch of
 * events costs one read of its workspaces, one of their endpoints, one of the deliveries made already and
 * one commit, however many events and endpoints it holds.
 */
export const fanOutBatch = async (deps: DeliveryDeps, events: CloudEvent[]): Promise<void> => {
  const workspaceIds = [...new Set(events.map((e) => idsOf(e).workspaceId).filter((id) => id !== ""))];
  if (workspaceIds.length === 0) return;
  const deactivated = new Set(
    (await deps.collections.workspaces.find({ _id: { $in: workspaceIds } })).filter((w) => w.deactivated === true).map((w) => w._id),
  );
  const live = workspaceIds.filter((id) => !deactivated.has(id));
  if (live.length === 0) return;
  const endpoints = await deps.collections.endpoints.find(live.length === 1 ? { workspaceId: live[0], active: true } : { workspaceId: { $in: live }, active: true });
  const deliveries: DeliveryDoc[] = [];
  for (const event of events) {
    const { workspaceId, projectId } = idsOf(event);
    if (!workspaceId || deactivated.has(workspaceId)) continue;
    const matching = endpoints.filter(
      (e) => e.workspaceId === workspaceId && (e.projectId === null || e.projectId === projectId) && subscribesTo(e.eventTypes, event.type),
    );
    if (matching.length === 0) continue;
    const body = payloadOf(event.type, event.time, event.data);
    for (const endpoint of matching) deliveries.push(newDelivery(deps, endpoint, event.id, event.type, body));
  }
  await createDeliveries(deps, deliveries);
};

/** One published event: `fanOutBatch` of one. */
export const fanOut = (deps: DeliveryDeps, event: CloudEvent): Promise<void> => fanOutBatch(deps, [event]);

/** test_webhook: one `webhook.test` event to exactly that endpoint (whatever its event types). */
export const sendTest = async (deps: DeliveryDeps, request: TestRequested): Promise<void> => {
  const endpoint = await deps.collections.endpoints.findById(request.endpointId);
  if (!endpoint) return;
  const body = payloadOf(TEST_EVENT_TYPE, request.requestedAt, {
    webhookId: endpoint._id,
    message: "A test event sent by test_webhook. Verify its signature with the endpoint's secret.",
  });
  await createDeliveries(deps, [newDelivery(deps, endpoint, request.eventId, TEST_EVENT_TYPE, body)]);
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
