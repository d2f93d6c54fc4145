import type { Write } from "@earshot/platform/core";
import type { ProjectEvent } from "@earshot/contracts/events";
import { keywordEvent } from "../events";
import { KEYWORDS, type KeywordDoc, type ProjectStateDoc } from "../store";
import { ensureDefaultGroups } from "./default-groups";
import type { KeywordDeps } from "./deps";

// What this service keeps of the project service's events: each project's workspace and status (a paused
// project's keywords are not collected; an archived project's keywords are gone), and the default groups
// of every new project. An account deactivation reaches it as its owner's projects being paused.

const STATUSES = new Set(["active", "paused", "archived"]);

/** Keywords deactivated per commit when a project is archived: bounded writes, each batch with its events. */
const ARCHIVE_BATCH = 100;

const setState = async (deps: KeywordDeps, projectId: string, workspaceId: string, status: ProjectStateDoc["status"]) => {
  const now = deps.clock.now();
  const current = await deps.collections.projects.findById(projectId);
  // Archived is final: a late or replayed event never brings a project back.
  if (current?.status === "archived") return;
  await deps.collections.projects.updateOne({ _id: projectId }, { $set: { workspaceId, status, updatedAt: now } }, { upsert: true });
};

/**
 * Deactivates every active keyword of an archived project, so they stop counting and being collected.
 * Under the workspace guard: a keyword create or reactivation racing the archival either commits first
 * (and is deactivated here) or re-checks after this and finds the project archived.
 */
const archiveProject = async (deps: KeywordDeps, projectId: string, workspaceId: string) => {
  await setState(deps, projectId, workspaceId, "archived");
  for (;;) {
    const done = await deps.guard.run(workspaceId, async (commit) => {
      const batch = await deps.collections.keywords.find({ projectId, active: true }, { limit: ARCHIVE_BATCH });
      // The last round commits too (nothing but the guard): a racing write that read the project before it
      // was archived then meets a version conflict instead of committing an active keyword after this.
      if (batch.length === 0) {
        await commit([], []);
        return true;
      }
      const now = deps.clock.now();
      const next: KeywordDoc[] = batch.map((k) => ({
        ...k,
        active: false,
        activeKey: undefined,
        deactivatedAt: now,
        deactivatedBy: "project_archived",
        updatedAt: now,
        _v: (k._v ?? 1) + 1,
      }));
      const writes: Write[] = next.map((k, i) => ({ kind: "replace", collection: KEYWORDS, doc: k, expectedVersion: batch[i]?._v ?? 1 }));
      await commit(writes, next.map((k) => keywordEvent("keyword.deactivated", k, ["active"])));
      return false;
    });
    if (done) return;
  }
};

export const handleProjectEvent = async (deps: KeywordDeps, event: ProjectEvent): Promise<void> => {
  const { projectId, workspaceId } = event.data;
  if (!projectId || !workspaceId) return;
  switch (event.type) {
    case "project.created":
      await setState(deps, projectId, workspaceId, "active");
      await ensureDefaultGroups(deps, { projectId, workspaceId });
      return;
    case "project.updated": {
      const { status } = event.data;
      if (status === "archived") await archiveProject(deps, projectId, workspaceId);
      else if (STATUSES.has(status)) await setState(deps, projectId, workspaceId, status as ProjectStateDoc["status"]);
      return;
    }
    case "project.archived":
      await archiveProject(deps, projectId, workspaceId);
      return;
    default:
      return;
  }
};
