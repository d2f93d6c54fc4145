import type { KeywordEventData } from "@earshot/keyword/matcher";
import type { CloudEvent } from "@earshot/platform/core";
import type { GroupCopyDoc, KeywordCopyDoc, ProjectStateDoc } from "../store";
import type { MentionDeps } from "./deps";

// What this service keeps of other services' events (each handled once, in order per project):
// - projects (earshot.project.v1): workspace, status and time zone. Archived is final: a late or replayed
//   event never revives a project. An account deactivation arrives as its owner's projects paused.
// - keywords (earshot.keyword.v1): the whole keyword as the event carries it, kept when deactivated
//   (`active` false), since mentions keep naming it. Every write moves the project's keywordsRevision on
//   and updates this process's matcher (ingest-matchers.ts).
// - keyword groups: name and whether it is a default group (share of voice), removed when deleted.

const STATUSES = new Set<string>(["active", "paused", "archived"]);

interface ProjectEventData {
  projectId?: string;
  workspaceId?: string;
  status?: string;
  digestTimezone?: string;
}

interface GroupEventData {
  groupId?: string;
  projectId?: string;
  name?: string;
  isDefault?: boolean;
}

const DEFAULT_TIMEZONE = "UTC";

const setProject = async (deps: MentionDeps, projectId: string, fields: Partial<Pick<ProjectStateDoc, "workspaceId" | "status" | "timezone">>) => {
  const current = await deps.collections.projects.findById(projectId);
  if (current?.status === "archived") return;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== ""));
  await deps.collections.projects.updateOne(
    { _id: projectId },
    { $set: { ...(current?.timezone ? {} : { timezone: DEFAULT_TIMEZONE }), ...defined, updatedAt: deps.clock.now() } },
    { upsert: true },
  );
};

export const handleProjectEvent = async (deps: MentionDeps, event: CloudEvent): Promise<void> => {
  const data = (event.data ?? {}) as ProjectEventData;
  const { projectId, workspaceId } = data;
  if (!projectId || !workspaceId) return;
  switch (event.type) {
    case "project.created":
      await setProject(deps, projectId, { workspaceId, status: "active", timezone: data.digestTimezone });
      return;
    case "project.updated": {
      const status = data.status && STATUSES.has(data.status) ? (data.status as ProjectStateDoc["status"]) : undefined;
      await setProject(deps, projectId, { workspaceId, status, timezone: data.digestTimezone });
      if (status === "archived") deps.matchers.drop(projectId);
      return;
    }
    case "project.archived":
      await setProject(deps, projectId, { workspaceId, status: "archived" });
      deps.matchers.drop(projectId);
      return;
    default:
      return;
  }
};

const keywordCopyOf = (d: KeywordEventData, now: Date): Omit<KeywordCopyDoc, "_id" | "_v"> => ({
  projectId: d.projectId,
  groupId: d.groupId,
  value: d.value,
  sources: (d.sources ?? []) as KeywordCopyDoc["sources"],
  aliases: d.aliases ?? [],
  excludedTerms: d.excludedTerms ?? [],
  filters: (d.filters ?? {}) as Record<string, unknown>,
  caseSensitive: d.caseSensitive ?? false,
  active: d.active === true,
  updatedAt: now,
});

const handleKeyword = async (deps: MentionDeps, event: CloudEvent, data: KeywordEventData) => {
  if (!data.keywordId || !data.projectId || typeof data.value !== "string") return;
  // A deactivation carries the keyword as it is afterwards; said once more so no reading depends on it.
  const copy = { ...data, active: event.type !== "keyword.deactivated" && data.active === true };
  await deps.collections.keywords.updateOne({ _id: data.keywordId }, { $set: keywordCopyOf(copy, deps.clock.now()) }, { upsert: true });
  // After the copy, never before: a process that reads the new revision finds the copy written.
  const state = await deps.collections.projects.findOneAndUpdate({ _id: data.projectId }, { $inc: { keywordsRevision: 1 } });
  if (state) deps.matchers.applied(event.type, copy, state.keywordsRevision ?? 0);
};

const handleGroup = async (deps: MentionDeps, event: CloudEvent, data: GroupEventData) => {
  if (!data.groupId || !data.projectId) return;
  if (event.type === "keyword_group.deleted") {
    await deps.collections.groups.deleteOne({ _id: data.groupId });
    return;
  }
  const fields: Omit<GroupCopyDoc, "_id" | "_v"> = { projectId: data.projectId, name: data.name ?? "", isDefault: data.isDefault === true, updatedAt: deps.clock.now() };
  await deps.collections.groups.updateOne({ _id: data.groupId }, { $set: fields }, { upsert: true });
};

export const handleKeywordEvent = async (deps: MentionDeps, event: CloudEvent): Promise<void> => {
  if (event.type.startsWith("keyword.")) await handleKeyword(deps, event, (event.data ?? {}) as KeywordEventData);
  else if (event.type.startsWith("keyword_group.")) await handleGroup(deps, event, (event.data ?? {}) as GroupEventData);
};
