import type { AccountEvent } from "@earshot/contracts/events";
import type { DeliveryDeps } from "./deps";

// What the delivery worker keeps of the account service's events: each workspace's owner (whom to email
// when an endpoint is deactivated for failing) and whether the owner's account is deactivated, which stops
// the workspace's deliveries until it is reactivated.

const OPEN = ["pending", "retrying", "held"];

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
