import { applyProjectChange, type ProjectChange, projectChangeOf, type Write } from "@earshot/platform/core";
import type { ProjectEvent } from "@earshot/contracts/events";
import { keywordEvent } from "../events";
import { KEYWORDS, type KeywordDoc } from "../store";
import { ensureDefaultGroups } from "./default-groups";
import type { KeywordDeps } from "./deps";

// What this service keeps of the project service's events: each project's copy (the platform's
// project-copy rules: a paused project's keywords are not collected; an archived project's keywords are
// gone), and the default groups of every new project.

/** Keywords deactivated per commit when a project is archived: bounded writes, each batch with its events. */
const ARCHIVE_BATCH = 100;

const setState = (deps: KeywordDeps, change: ProjectChange) => applyProjectChange(deps.collections.projects, change, { now: deps.clock.now() });

/**
 * Deactivates every active keyword of an archived project, so they stop counting and being collected.
 * Under the workspace guard: a keyword create or reactivation racing the archival either commits first
 * (and is deactivated here) or re-checks after this and finds the project archived.
 */
const archiveProject = async (deps: KeywordDeps, projectId: string, workspaceId: string) => {
  await setState(deps, { projectId, workspaceId, status: "archived" });
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
  const change = projectChangeOf(event);
  if (!change) return;
  if (change.status === "archived") return archiveProject(deps, change.projectId, change.workspaceId);
  await setState(deps, change);
  if (event.type === "project.created") await ensureDefaultGroups(deps, change);
};
