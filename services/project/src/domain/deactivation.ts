import type { AccountEvent } from "@earshot/contracts/events";
import { withVersionRetry } from "@earshot/platform/core";
import type { ProjectDoc } from "../store";
import type { ProjectDeps } from "./deps";
import { projectUpdatedEvent } from "../events";
import { withDashboardChange } from "./dashboard-announcement";
import { bumped, replaceProject } from "./project-writes";

// A deactivated account's projects stop (paused, remembered as paused by deactivation); reactivation
// resumes exactly those, leaving projects the owner had paused themselves alone.

const move = async (deps: ProjectDeps, project: ProjectDoc, to: "paused" | "active") => {
  // Re-read state may have moved on (the owner archived or resumed it meanwhile): leave it then.
  if (to === "paused" ? project.status !== "active" : !project.pausedByDeactivation) return project;
  const moved: ProjectDoc = { ...project, status: to, updatedAt: deps.clock.now() };
  if (to === "paused") moved.pausedByDeactivation = true;
  else delete moved.pausedByDeactivation;
  const { next, events } = withDashboardChange(project, moved);
  await deps.outbox.commit([replaceProject(project, next)], [projectUpdatedEvent(next, ["status"]), ...events]);
  return bumped(next);
};

export const handleAccountEvent = async (deps: ProjectDeps, event: AccountEvent): Promise<void> => {
  if (event.type === "user.deactivated" && event.data.userId) {
    const projects = await deps.collections.projects.find({ ownerId: event.data.userId, status: "active" });
    for (const p of projects) await withVersionRetry(async () => move(deps, (await deps.collections.projects.findById(p._id)) ?? p, "paused"));
  } else if (event.type === "user.reactivated" && event.data.userId) {
    const projects = await deps.collections.projects.find({ ownerId: event.data.userId, pausedByDeactivation: true });
    for (const p of projects) await withVersionRetry(async () => move(deps, (await deps.collections.projects.findById(p._id)) ?? p, "active"));
  }
};
