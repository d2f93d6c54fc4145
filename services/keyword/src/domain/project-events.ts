import type { CloudEvent, Write } from "@earshot/platform/core";
import { keywordEvent } from "../events";
import { KEYWORDS, type KeywordDoc, type ProjectStateDoc } from "../store";
import { ensureDefaultGroups } from "./default-groups";
import type { KeywordDeps } from "./deps";

// What this service keeps of the project service's events: each project's workspace and status (a paused
// project's keywords are not collected; an archived project's keywords are gone), and the default groups
// of every new project. An account deactivation reaches it as its owner's projects being paused.

interface ProjectEventData {
  projectId?: string;
  workspaceId?: string;
  status?: string;
}

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

/** Deactivates every active keyword of an archived project, so they stop counting and being collected. */
const deactivateProjectKeywords = async (deps: KeywordDeps, projectId: string) => {
  for (;;) {
    const batch = await deps.collections.keywords.find({ projectId, active: true }, { limit: ARCHIVE_BATCH });
    if (batch.length === 0) return;
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
    await deps.outbox.commit(writes, next.map((k) => keywordEvent("keyword.deactivated", k, ["active"])));
  }
};

export const handleProjectEvent = async (deps: KeywordDeps, event: CloudEvent): Promise<void> => {
  const data = (event.data ?? {}) as ProjectEventData;
  const { projectId, workspaceId } = data;
  if (!projectId || !workspaceId) return;
  switch (event.type) {
    case "project.created":
      await setState(deps, projectId, workspaceId, "active");
      await ensureDefaultGroups(deps, { projectId, workspaceId });
      return;
    case "project.updated":
      if (data.status && STATUSES.has(data.status)) await setState(deps, projectId, workspaceId, data.status as ProjectStateDoc["status"]);
      if (data.status === "archived") await deactivateProjectKeywords(deps, projectId);
      return;
    case "project.archived":
      await setState(deps, projectId, workspaceId, "archived");
      await deactivateProjectKeywords(deps, projectId);
      return;
    default:
      return;
  }
};
