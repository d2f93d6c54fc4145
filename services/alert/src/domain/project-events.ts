import type { ProjectEvent } from "@earshot/contracts/events";
import type { ProjectStateDoc } from "../store";
import { ensureDailyDigest } from "./daily-digest";
import type { AlertDeps } from "./deps";

// What this service keeps of the project service's events: each project's workspace and status (an
// archived project's rules answer not_found), and the Daily Digest of every new project.

const STATUSES = new Set(["active", "paused", "archived"]);

const setState = async (deps: AlertDeps, projectId: string, workspaceId: string, status: ProjectStateDoc["status"]) => {
  const current = await deps.collections.projects.findById(projectId);
  // Archived is final: a late or replayed event never brings a project back.
  if (current?.status === "archived") return;
  await deps.collections.projects.updateOne({ _id: projectId }, { $set: { workspaceId, status, updatedAt: deps.clock.now() } }, { upsert: true });
};

export const handleProjectEvent = async (deps: AlertDeps, event: ProjectEvent): Promise<void> => {
  const { projectId, workspaceId } = event.data;
  if (!projectId || !workspaceId) return;
  switch (event.type) {
    case "project.created":
      await setState(deps, projectId, workspaceId, "active");
      await ensureDailyDigest(deps, { projectId, workspaceId });
      return;
    case "project.updated":
      if (STATUSES.has(event.data.status)) await setState(deps, projectId, workspaceId, event.data.status as ProjectStateDoc["status"]);
      return;
    case "project.archived":
      await setState(deps, projectId, workspaceId, "archived");
      return;
    default:
      return;
  }
};
