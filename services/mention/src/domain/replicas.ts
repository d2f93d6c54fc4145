import type { KeywordChanged, KeywordEvent, KeywordGroupChanged, ProjectEvent } from "@earshot/contracts/events";
import type { GroupCopyDoc, KeywordCopyDoc, ProjectStateDoc } from "../store";
import type { MentionDeps } from "./deps";

// What this service keeps of other services' events (each handled once, in order per project):
// - projects (project events): workspace, status, time zone, and the public dashboard's share id and
//   whether it is served. Archived is final: a late or replayed
//   event never revives a project. An account deactivation arrives as its owner's projects paused.
// - keywords (keyword events): the whole keyword as the event carries it, kept when deactivated
//   (`active` false), since mentions keep naming it. Every write moves the project's keywordsRevision on
//   and updates this process's matcher (ingest-matchers.ts).
// - keyword groups: name and whether it is a default group (share of voice), removed when deleted.

const STATUSES = new Set<string>(["active", "paused", "archived"]);

const DEFAULT_TIMEZONE = "UTC";

const setProject = async (
  deps: MentionDeps,
  projectId: string,
  fields: Partial<Pick<ProjectStateDoc, "workspaceId" | "status" | "timezone" | "shareId" | "dashboardServed">>,
) => {
  const current = await deps.collections.projects.findById(projectId);
  if (current?.status === "archived") return;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== ""));
  await deps.collections.projects.updateOne(
    { _id: projectId },
    { $set: { ...(current?.timezone ? {} : { timezone: DEFAULT_TIMEZONE }), ...defined, updatedAt: deps.clock.now() } },
    { upsert: true },
  );
};

export const handleProjectEvent = async (deps: MentionDeps, event: ProjectEvent): Promise<void> => {
  const { projectId, workspaceId } = event.data;
  if (!projectId || !workspaceId) return;
  switch (event.type) {
    case "project.created":
      await setProject(deps, projectId, { workspaceId, status: "active", timezone: event.data.digestTimezone });
      return;
    case "project.updated": {
      const status = STATUSES.has(event.data.status) ? (event.data.status as ProjectStateDoc["status"]) : undefined;
      await setProject(deps, projectId, { workspaceId, status, timezone: event.data.digestTimezone });
      if (status === "archived") deps.matchers.drop(projectId);
      return;
    }
    case "project.archived":
      await setProject(deps, projectId, { workspaceId, status: "archived" });
      deps.matchers.drop(projectId);
      return;
    case "project.dashboard_changed":
      await setProject(deps, projectId, { workspaceId, shareId: event.data.shareId, dashboardServed: event.data.served });
      return;
    default:
      return;
  }
};

const keywordCopyOf = (d: KeywordChanged, now: Date): Omit<KeywordCopyDoc, "_id" | "_v"> => ({
  projectId: d.projectId,
  groupId: d.groupId,
  value: d.value,
  sources: d.sources as KeywordCopyDoc["sources"],
  aliases: d.aliases,
  excludedTerms: d.excludedTerms,
  filters: { ...d.filters },
  caseSensitive: d.caseSensitive,
  active: d.active,
  updatedAt: now,
});

const handleKeyword = async (deps: MentionDeps, type: string, data: KeywordChanged) => {
  if (!data.keywordId || !data.projectId) return;
  // A deactivation carries the keyword as it is afterwards; said once more so no reading depends on it.
  const copy = { ...data, active: type !== "keyword.deactivated" && data.active };
  await deps.collections.keywords.updateOne({ _id: data.keywordId }, { $set: keywordCopyOf(copy, deps.clock.now()) }, { upsert: true });
  // After the copy, never before: a process that reads the new revision finds the copy written.
  const state = await deps.collections.projects.findOneAndUpdate({ _id: data.projectId }, { $inc: { keywordsRevision: 1 } });
  if (state) deps.matchers.applied(type, copy, state.keywordsRevision ?? 0);
};

const handleGroup = async (deps: MentionDeps, type: string, data: KeywordGroupChanged) => {
  if (!data.groupId || !data.projectId) return;
  if (type === "keyword_group.deleted") {
    await deps.collections.groups.deleteOne({ _id: data.groupId });
    return;
  }
  const fields: Omit<GroupCopyDoc, "_id" | "_v"> = { projectId: data.projectId, name: data.name, isDefault: data.isDefault, updatedAt: deps.clock.now() };
  await deps.collections.groups.updateOne({ _id: data.groupId }, { $set: fields }, { upsert: true });
};

export const handleKeywordEvent = async (deps: MentionDeps, event: KeywordEvent): Promise<void> => {
  switch (event.type) {
    case "keyword.created":
    case "keyword.updated":
    case "keyword.deactivated":
      return handleKeyword(deps, event.type, event.data);
    case "keyword_group.created":
    case "keyword_group.updated":
    case "keyword_group.deleted":
      return handleGroup(deps, event.type, event.data);
  }
};
