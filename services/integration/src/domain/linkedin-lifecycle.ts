import type { CloudEvent } from "@earshot/platform/core";
import type { IntegrationDeps } from "./deps";
import { endLinkedinConnection } from "./linkedin-disconnect";

// LinkedIn connections end with their project (archived: `project.archived`, or a `project.updated`
// saying status archived) and with their owner's account (`user.deactivated`: every connection the user
// owns, and the authorizations they started, which must not complete after).

const stringOf = (data: unknown, field: string): string | undefined => {
  const value = (data as Record<string, unknown> | undefined)?.[field];
  return typeof value === "string" && value ? value : undefined;
};

export const handleLinkedinProjectEvent = async (deps: IntegrationDeps, event: CloudEvent): Promise<void> => {
  const projectId = stringOf(event.data, "projectId");
  if (!projectId) return;
  const archived = event.type === "project.archived" || (event.type === "project.updated" && stringOf(event.data, "status") === "archived");
  if (archived) await endLinkedinConnection(deps, projectId, "project_archived");
};

export const handleLinkedinAccountEvent = async (deps: IntegrationDeps, event: CloudEvent): Promise<void> => {
  if (event.type !== "user.deactivated") return;
  const userId = stringOf(event.data, "userId");
  if (!userId) return;
  await deps.collections.linkedinStates.deleteMany({ userId });
  const owned = await deps.collections.linkedin.find({ ownerId: userId, status: { $ne: "disconnected" } });
  for (const connection of owned) await endLinkedinConnection(deps, connection._id, "account_deactivated");
};
