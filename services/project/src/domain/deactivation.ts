import { type CloudEvent, withVersionRetry } from "@earshot/platform/core";
import type { ProjectDoc } from "../store";
import type { ProjectDeps } from "./deps";
import { projectUpdatedEvent } from "../events";
import { bumped, replaceProject } from "./projects";

// A deactivated account's projects stop (paused, remembered as paused by deactivation); reactivation
// resumes exactly those, leaving projects the owner had paused themselves alone.

const move = async (deps: ProjectDeps, project: ProjectDoc, to: "paused" | "active") => {
  // Re-read state may have moved on (the owner archived or resumed it meanwhile): leave it then.
  if (to === "paused" ? project.status !== "active" : !project.pausedByDeactivation) return project;
  const next: ProjectDoc = { ...project, status: to, updatedAt: deps.clock.now() };
  if (to === "paused") next.pausedByDeactivation = true;
  else delete next.pausedByDeactivation;
  await deps.outbox.commit([replaceProject(project, next)], [projectUpdatedEvent(next, ["status"])]);
  return bumped(next);
};

export const handleAccountEvent = async (deps: ProjectDeps, event: CloudEvent): Promise<void> => {
  const data = event.data as { userId?: string };
  if (!data.userId) return;
  if (event.type === "user.deactivated") {
    const projects = await deps.collections.projects.find({ ownerId: data.userId, status: "active" });
    for (const p of projects) await withVersionRetry(async () => move(deps, (await deps.collections.projects.findById(p._id)) ?? p, "paused"));
  } else if (event.type === "user.reactivated") {
    const projects = await deps.collections.projects.find({ ownerId: data.userId, pausedByDeactivation: true });
    for (const p of projects) await withVersionRetry(async () => move(deps, (await deps.collections.projects.findById(p._id)) ?? p, "active"));
  }
};
