import type { Write } from "@earshot/platform/core";
import { DELIVERIES, type DeliveryDoc, type EndpointDoc } from "../store";
import { nextUtcDay, openBudgets } from "./budget";
import type { DeliveryDeps } from "./deps";

// What a claim decides for each due delivery, all in the one commit that claims them: so a delivery's
// happy path is three writes in all (its creation, its claim with its budget, its outcome), and the
// budget get_usage reads is counted when the send is decided, not reported back afterwards.

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
    } else if (!d.charged && !budgets.take(d.workspaceId, endpoint.dailyBudget)) {
      writes.push(replaced(d, { status: "held", nextAttemptAt: nextUtcDay(now) }));
    } else {
      const next: DeliveryDoc = { ...d, nextAttemptAt: until, ...(d.charged ? {} : { charged: true, budgetDay: budgets.day }), _v: (d._v ?? 1) + 1 };
      writes.push({ kind: "replace", collection: DELIVERIES, doc: next, expectedVersion: d._v ?? 1 });
      claimed.push({ delivery: next, endpoint });
    }
  }
  await deps.outbox.commit([...writes, ...budgets.writes()], []);
  return claimed;
};
