import { DomainError, type StagedEvent, withVersionRetry } from "@earshot/platform/core";
import { dashboardChangedEvent, dashboardChangedEvents, type PublicDashboardChanged } from "../events";
import type { ProjectDoc } from "../store";
import type { ProjectDeps } from "./deps";
import { replaceProject } from "./project-writes";

// Consumers learn a share id only from `project.dashboard_changed`. Dashboards enabled before that event
// existed never produced one, so their links would stay unknown until the owner touched the dashboard.
// Every write that stages the event marks the project `dashboardAnnounced`; at start the service
// announces each project with a share id that lacks the mark, once, the mark committed with the event.

/**
 * The write of a project from `before` to `after` with the `project.dashboard_changed` it calls for;
 * `next` (the document to store) carries the announced mark whenever the event is staged.
 */
export const withDashboardChange = (before: ProjectDoc, after: ProjectDoc): { next: ProjectDoc; events: StagedEvent<PublicDashboardChanged>[] } => {
  const events = dashboardChangedEvents(before, after);
  return { next: events.length > 0 ? { ...after, dashboardAnnounced: true } : after, events };
};

export const ANNOUNCE_BATCH = 100;

/**
 * Stages `project.dashboard_changed` for every project with a share id that was never announced, in
 * batches of `batchSize`, each with the mark in the same commit. The write is versioned: of two replicas
 * starting at once one commits and the other, re-reading, finds the mark and passes. Safe to run at every
 * start: once every project is marked it stages nothing. Returns how many it announced.
 */
export const announceDashboards = async (deps: ProjectDeps, batchSize = ANNOUNCE_BATCH): Promise<number> => {
  let announced = 0;
  // Walks by id so a project it could not mark (see below) is not read again in the same run.
  let after = "";
  for (;;) {
    const batch = await deps.collections.projects.find(
      { "publicDashboard.shareId": { $exists: true }, dashboardAnnounced: { $exists: false }, _id: { $gt: after } },
      { sort: { _id: 1 }, limit: batchSize },
    );
    for (const p of batch) {
      try {
        if (await withVersionRetry(() => announce(deps, p._id))) announced++;
      } catch (err) {
        // A project rewritten faster than it can be marked is left for the next start; the others go on.
        if (!(err instanceof DomainError && err.code === "conflict")) throw err;
        deps.logger.warn({ projectId: p._id }, "public dashboard not announced: the project kept changing; the next start tries again");
      }
    }
    if (batch.length < batchSize) break;
    after = batch[batch.length - 1]!._id;
  }
  if (announced > 0) deps.logger.info({ announced }, "announced public dashboards enabled before project.dashboard_changed");
  return announced;
};

/** Announces one project read afresh; false when it is gone or already announced (by another replica or a write meanwhile). */
const announce = async (deps: ProjectDeps, projectId: string): Promise<boolean> => {
  const project = await deps.collections.projects.findById(projectId);
  if (!project?.publicDashboard.shareId || project.dashboardAnnounced) return false;
  const next: ProjectDoc = { ...project, dashboardAnnounced: true };
  await deps.outbox.commit([replaceProject(project, next)], [dashboardChangedEvent(next)]);
  return true;
};
