import type { AccountEvent } from "@earshot/account/events";
import { isUniqueViolation } from "@earshot/platform/core";
import type { EndpointChanged } from "@earshot/webhook/events";
import type { EndpointCopyDoc } from "../store";
import type { DeliveryDeps } from "./deps";

// What this service keeps of others' events: the endpoints (from the webhook service, sealed secrets
// included) and the workspaces (whom to email, and whether the owner's account is deactivated, which
// stops the workspace's deliveries until it is reactivated).

const OPEN = ["pending", "retrying", "held"];

/** Applies an endpoint as the webhook service last saved it; an older event never replaces a newer copy. */
export const saveEndpoint = async (deps: DeliveryDeps, e: EndpointChanged): Promise<void> => {
  const version = Number(e.version);
  const fields = {
    workspaceId: e.workspaceId,
    projectId: e.projectId || null,
    url: e.url,
    eventTypes: [...e.eventTypes],
    active: e.active,
    secrets: e.secrets.map((s) => ({ sealed: s.sealed, ...(s.expiresAt ? { expiresAt: new Date(s.expiresAt) } : {}) })),
    version,
    dailyBudget: e.dailyBudget,
  };
  const updated = await deps.collections.endpoints.updateOne({ _id: e.endpointId, version: { $lt: version } }, { $set: fields });
  if (updated.matchedCount === 0) {
    try {
      await deps.collections.endpoints.insertOne({ _id: e.endpointId, ...fields } as EndpointCopyDoc);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  // Reactivated: a success is needed to prove it healthy again, but the old streak no longer counts.
  if (e.active) await deps.collections.endpoints.updateOne({ _id: e.endpointId, failingSince: { $exists: true } }, { $unset: { failingSince: true } });
};

/** The endpoint is gone: so are its deliveries (its history too, as delete_webhook promises). */
export const dropEndpoint = async (deps: DeliveryDeps, endpointId: string): Promise<void> => {
  await deps.collections.endpoints.deleteOne({ _id: endpointId });
  await deps.collections.deliveries.deleteMany({ endpointId });
};

export const handleAccountEvent = async (deps: DeliveryDeps, event: AccountEvent): Promise<void> => {
  const workspaceId = "workspaceId" in event.data ? event.data.workspaceId : "";
  if (!workspaceId) return;
  const workspaces = deps.collections.workspaces;
  switch (event.type) {
    case "user.created":
      await workspaces.updateOne({ _id: workspaceId }, { $set: { ownerEmail: event.data.email } }, { upsert: true });
      return;
    case "user.deactivated":
      await workspaces.updateOne({ _id: workspaceId }, { $set: { deactivated: true } }, { upsert: true });
      return;
    case "user.reactivated": {
      await workspaces.updateOne({ _id: workspaceId }, { $set: { deactivated: false } }, { upsert: true });
      // What deactivation postponed goes out now (a held delivery keeps waiting for its day).
      await deps.collections.deliveries.updateMany({ workspaceId, status: { $in: OPEN.filter((s) => s !== "held") } }, { $set: { nextAttemptAt: deps.clock.now() } });
      deps.wake();
      return;
    }
    default:
      return;
  }
};
