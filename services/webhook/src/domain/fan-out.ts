import { UNSCORED_RELEVANCE } from "@earshot/contracts/fields";
import { isUniqueViolation } from "@earshot/platform/core";
import { renderMentionMessage } from "../chat/render";
import { CHAT_EVENT_TYPES, type DeliverableEvent, isChatFormat, subscribesTo, type WebhookFormat } from "../fields";
import { DELIVERIES, type DeliveryDoc, type EndpointDoc } from "../store";
import { newDelivery, payloadOf } from "./delivery-doc";
import type { DeliveryDeps } from "./deps";

// Turning events into deliveries: each deliverable event goes to every active endpoint of its workspace
// whose scope (the workspace, or the event's project) and event types match (a test event goes to exactly
// the endpoint test_webhook names, see endpoints.ts). A delivery is created once per (endpoint, event) however often the event arrives,
// with its payload fixed, so every attempt and redelivery sends the same bytes under the same webhook-id.
// A oncePerStory endpoint gets a story once: the first copy to arrive that passes its relevance bound (its
// delivery holds the unique `storyKey`), so a story whose first copy scored low still reaches it by a
// better copy.

/** Commits the deliveries; false when one of them was made already (nothing of this commit happened). */
const commitDeliveries = async (deps: DeliveryDeps, deliveries: DeliveryDoc[]): Promise<boolean> => {
  try {
    await deps.outbox.commit(
      deliveries.map((doc) => ({ kind: "insert", collection: DELIVERIES, doc })),
      [],
    );
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return false;
  }
};

/**
 * One delivery per endpoint, made once per (endpoint, event) however often the event arrives, and once per
 * (endpoint, story) for a story's copies. The deliveries not made yet go in one commit (one write to the
 * store, whatever the number of events and endpoints); when a commit clashes with one made meanwhile
 * (another instance handling the same event or story), the rest are made one by one.
 */
const createDeliveries = async (deps: DeliveryDeps, deliveries: DeliveryDoc[]): Promise<void> => {
  if (deliveries.length === 0) return;
  // An event handled before (a redelivered batch) finds its deliveries made, and a story delivered finds its
  // delivery: one read of each for the whole batch.
  const storyKeys = deliveries.flatMap((d) => (d.storyKey ? [d.storyKey] : []));
  const [made, stories] = await Promise.all([
    deps.collections.deliveries.find({ dedupeKey: { $in: deliveries.map((d) => d.dedupeKey) } }),
    storyKeys.length > 0 ? deps.collections.deliveries.find({ storyKey: { $in: storyKeys } }) : [],
  ]);
  const seen = new Set(made.map((d) => d.dedupeKey));
  const storiesDelivered = new Set(stories.map((d) => d.storyKey));
  // A repeat inside the batch (the bus handed an event twice) is one delivery; a story's later copy in the batch, none.
  const missing = deliveries.filter((d) => {
    if (seen.has(d.dedupeKey) || (d.storyKey && storiesDelivered.has(d.storyKey))) return false;
    seen.add(d.dedupeKey);
    if (d.storyKey) storiesDelivered.add(d.storyKey);
    return true;
  });
  if (missing.length === 0) return;
  if (!(await commitDeliveries(deps, missing)) && missing.length > 1) {
    for (const d of missing) await commitDeliveries(deps, [d]);
  }
  deps.wake();
};

/**
 * The event's bodies, one per format asked for: the Standard Webhooks payload, or a chat endpoint's message
 * (chat/render.ts); none (logged) for an event that does not carry its resource: an older producer staged it.
 */
const bodiesOf = (deps: DeliveryDeps, event: DeliverableEvent): ((format: WebhookFormat | undefined) => string) | undefined => {
  try {
    const { data, context } = event.body();
    const made = new Map<WebhookFormat, string>();
    return (format = "standard") => {
      let body = made.get(format);
      if (body === undefined) {
        body = isChatFormat(format) ? renderMentionMessage(format, data, context) : payloadOf(event.type, event.time, data, context);
        made.set(format, body);
      }
      return body;
    };
  } catch (err) {
    deps.logger.warn({ eventId: event.id, type: event.type, err }, "event not delivered: it does not carry its resource as the API presents it");
    return undefined;
  }
};

/** Whether `endpoint` takes `event`: its scope and event types, and for a chat endpoint only what a chat message is about. */
const wants = (endpoint: EndpointDoc, event: DeliverableEvent): boolean =>
  (endpoint.projectId === null || endpoint.projectId === event.data.projectId) &&
  subscribesTo(endpoint.eventTypes, event.type) &&
  (!isChatFormat(endpoint.format) || (CHAT_EVENT_TYPES as readonly string[]).includes(event.type));

/**
 * The relevance score a mention.created event's mention had when it was stored (alerts and deliveries do not
 * follow later rescoring); a mention without a score counts as 0.5.
 */
const scoreOf = (event: DeliverableEvent): number => {
  const score = (event.body().data as { relevance?: { score?: unknown } | null } | null)?.relevance?.score;
  return typeof score === "number" ? score : UNSCORED_RELEVANCE.score;
};

/** The story of a mention.created event's mention; none for a mention without one (it is a story of its own). */
const storyOf = (event: DeliverableEvent): string | undefined => {
  const id = (event.body().data as { story?: { id?: unknown } | null } | null)?.story?.id;
  return typeof id === "string" && id !== "" ? id : undefined;
};

/**
 * Published events (project, keyword, mention, LinkedIn): one delivery per matching endpoint. A batch of
 * events costs one read of its workspaces, one of their endpoints, one of the deliveries made already and
 * one commit, however many events and endpoints it holds.
 */
export const fanOutBatch = async (deps: DeliveryDeps, events: readonly DeliverableEvent[]): Promise<void> => {
  // Only deliverable types arrive: the consumer declares them (consumers.ts).
  const workspaceIds = [...new Set(events.map((e) => e.data.workspaceId).filter((id) => id !== ""))];
  if (workspaceIds.length === 0) return;
  const deactivated = new Set(
    (await deps.collections.workspaces.find({ _id: { $in: workspaceIds } })).filter((w) => w.deactivated === true).map((w) => w._id),
  );
  const live = workspaceIds.filter((id) => !deactivated.has(id));
  if (live.length === 0) return;
  const endpoints = await deps.collections.endpoints.find(live.length === 1 ? { workspaceId: live[0], active: true } : { workspaceId: { $in: live }, active: true });
  const deliveries: DeliveryDoc[] = [];
  for (const event of events) {
    const { workspaceId } = event.data;
    if (!workspaceId || deactivated.has(workspaceId)) continue;
    const matching = endpoints.filter((e) => e.workspaceId === workspaceId && wants(e, event));
    if (matching.length === 0) continue;
    const bodyFor = bodiesOf(deps, event);
    if (bodyFor === undefined) continue;
    // A relevance bound applies to mention.created alone; the score is read only when some endpoint has one.
    const score = event.type === "mention.created" && matching.some((e) => e.minRelevance) ? scoreOf(event) : 1;
    const story = event.type === "mention.created" && matching.some((e) => e.oncePerStory) ? storyOf(event) : undefined;
    const bounded = matching.filter((e) => !e.minRelevance || score >= e.minRelevance);
    for (const endpoint of bounded) {
      const delivery = newDelivery(deps.clock.now(), endpoint, event.id, event.type, bodyFor(endpoint.format), deps.schedule[0] ?? 0);
      deliveries.push(endpoint.oncePerStory && story ? { ...delivery, storyKey: `${endpoint._id}:${story}` } : delivery);
    }
  }
  await createDeliveries(deps, deliveries);
};

