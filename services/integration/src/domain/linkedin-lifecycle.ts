import type { AccountEvent, ProjectEvent } from "@earshot/contracts/events";
import type { IntegrationDeps } from "./deps";
import { endLinkedinConnection } from "./linkedin-disconnect";

// LinkedIn connections end with their project (archived: `project.archived`, or a `project.updated`
// saying status archived) and with their owner's account (`user.deactivated`: every connection the user
// owns, and the authorizations they started, which must not complete after).

export const handleLinkedinProjectEvent = async (deps: IntegrationDeps, event: ProjectEvent): Promise<void> => {
  const { projectId } = event.data;
  if (!projectId) return;
  const archived = event.type === "project.archived" || (event.type === "project.updated" && event.data.status === "archived");
  if (archived) await endLinkedinConnection(deps, projectId, "project_archived");
};

export const handleLinkedinAccountEvent = async (deps: IntegrationDeps, event: AccountEvent): Promise<void> => {
  if (event.type !== "user.deactivated") return;
  const { userId } = event.data;
  if (!userId) return;
  await deps.collections.linkedinStates.deleteMany({ userId });
  const owned = await deps.collections.linkedin.find({ ownerId: userId, status: { $ne: "disconnected" } });
  for (const connection of owned) await endLinkedinConnection(deps, connection._id, "account_deactivated");
};
