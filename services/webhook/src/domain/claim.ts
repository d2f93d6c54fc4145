import type { Write } from "@earshot/platform/core";
import { CHAT_PACES, type ChatPaceDoc, DELIVERIES, type DeliveryDoc, type EndpointDoc } from "../store";
import { nextUtcDay, openBudgets } from "./budget";
import type { DeliveryDeps } from "./deps";

// What a claim decides for each due delivery, all in the one commit that claims them: so a delivery's
// happy path is three writes in all (its creation, its claim with its budget, its outcome), and the
// budget get_usage reads is counted when the send is decided, not reported back afterwards. A chat
// endpoint's deliveries also take the endpoint's turn (its pace document) in that commit, so across
// replicas one request at a time goes to it, and none before the provider's pace allows.

/** How long a workspace's deliveries wait while its owner's account is deactivated (reactivation wakes them sooner). */
export const DEACTIVATED_RECHECK_MS = 3600 * 1000;

/** A delivery claimed for an attempt, with its endpoint as read for the claim. */
export interface Claimed {
  delivery: DeliveryDoc;
  endpoint: EndpointDoc;
}

const replaced = (d: DeliveryDoc, next: Partial<DeliveryDoc>): Write => ({
  kind: "replace",
  collection: DELIVERIES,
  doc: { ...d, ...next, _v: (d._v ?? 1) + 1 },
  expectedVersion: d._v ?? 1,
});

/** How soon a chat endpoint's deliveries look again while another replica's request is in flight (it is short). */
export const BUSY_RECHECK_MS = 1000;

/**
 * Until when a chat endpoint's next request must wait, or undefined when it may go now: the provider's pace,
 * or while a request is in flight a second (not the claim's end: it usually frees far sooner).
 */
const waitOf = (pace: ChatPaceDoc | undefined, now: Date): Date | undefined => {
  const busy = pace?.busyUntil !== undefined && pace.busyUntil > now;
  const until = Math.max(busy ? now.getTime() + BUSY_RECHECK_MS : 0, pace?.notBefore.getTime() ?? 0);
  return until > now.getTime() ? new Date(until) : undefined;
};

/** The endpoint's turn, held until the claim ends: an insert or a versioned replace, so of two replicas one wins. */
const takeTurn = (endpointId: string, pace: ChatPaceDoc | undefined, now: Date, until: Date): Write => {
  if (!pace) {
    const doc: ChatPaceDoc = { _id: endpointId, _v: 1, busyUntil: until, notBefore: now, updatedAt: now };
    return { kind: "insert", collection: CHAT_PACES, doc };
  }
  const doc: ChatPaceDoc = { ...pace, busyUntil: until, updatedAt: now, _v: (pace._v ?? 1) + 1 };
  return { kind: "replace", collection: CHAT_PACES, doc, expectedVersion: pace._v ?? 1 };
};

/**
 * Claims `deliveries` (read at their current versions) until `now + claimMs`, in one commit; throws a
 * version conflict or unique violation when another instance wrote one of them, or the same budget, first
 * (nothing of the commit happened). Returns the deliveries to attempt, at their claimed version.
 */
export const claimDeliveries = async (deps: DeliveryDeps, deliveries: DeliveryDoc[], now: Date, claimMs: number): Promise<Claimed[]> => {
  const endpointIds = [...new Set(deliveries.map((d) => d.endpointId))];
  const workspaceIds = [...new Set(deliveries.map((d) => d.workspaceId))];
  const endpoints = new Map((await deps.collections.endpoints.find({ _id: { $in: endpointIds } })).map((e) => [e._id, e]));
  const deactivated = new Set((await deps.collections.workspaces.find({ _id: { $in: workspaceIds }, deactivated: true })).map((w) => w._id));
  const budgets = await openBudgets(deps, workspaceIds, now);
  const chatIds = [...new Set(deliveries.filter((d) => d.chat).map((d) => d.endpointId))];
  const paces = new Map(chatIds.length > 0 ? (await deps.collections.chatPaces.find({ _id: { $in: chatIds } })).map((p) => [p._id, p]) : []);
  const turns = new Set<string>();
  const until = new Date(now.getTime() + claimMs);
  const writes: Write[] = [];
  const claimed: Claimed[] = [];
  for (const d of deliveries) {
    const endpoint = endpoints.get(d.endpointId);
    if (!endpoint) {
      // The endpoint was deleted after the delivery was made: so is the delivery, as delete_webhook promises.
      writes.push({ kind: "delete", collection: DELIVERIES, id: d._id });
    } else if (!endpoint.active) {
      writes.push(replaced(d, { status: "failed", nextAttemptAt: undefined }));
    } else if (deactivated.has(d.workspaceId)) {
      writes.push(replaced(d, { nextAttemptAt: new Date(now.getTime() + DEACTIVATED_RECHECK_MS) }));
    } else if (d.chat && !turns.has(d.endpointId) && waitOf(paces.get(d.endpointId), now)) {
      // Another request is in flight, or the provider's pace says not yet: due again when it allows.
      writes.push(replaced(d, { nextAttemptAt: waitOf(paces.get(d.endpointId), now) }));
    } else if (!d.charged && !budgets.take(d.workspaceId, endpoint.dailyBudget)) {
      writes.push(replaced(d, { status: "held", nextAttemptAt: nextUtcDay(now) }));
    } else {
      if (d.chat && !turns.has(d.endpointId)) {
        turns.add(d.endpointId);
        writes.push(takeTurn(d.endpointId, paces.get(d.endpointId), now, until));
      }
      const next: DeliveryDoc = { ...d, nextAttemptAt: until, ...(d.charged ? {} : { charged: true, budgetDay: budgets.day }), _v: (d._v ?? 1) + 1 };
      writes.push({ kind: "replace", collection: DELIVERIES, doc: next, expectedVersion: d._v ?? 1 });
      claimed.push({ delivery: next, endpoint });
    }
  }
  await deps.outbox.commit([...writes, ...budgets.writes()], []);
  return claimed;
};
