import type { KeywordChanged, KeywordEvent, KeywordGroupChanged, ProjectEvent } from "@earshot/contracts/events";
import { applyProjectChange, type ProjectChange, projectChangeOf, sourcesIn } from "@earshot/platform/core";
import type { GroupCopyDoc, KeywordCopyDoc, ProjectStateDoc } from "../store";
import type { MentionDeps } from "./deps";
import { dropDeletedGroup, regroupKeywordMentions } from "./regroup";
import { requestRescore } from "./relevance/rescore";

// What this service keeps of other services' events (each handled once, in order per project):
// - projects (project events): the platform's project copy (workspace and status; archived is final, an
//   account deactivation arrives as its owner's projects paused), with the time zone and the public
//   dashboard's share id and whether it is served, and the description (the relevance prior's context).
// - keywords (keyword events): the whole keyword as the event carries it, kept when deactivated
//   (`active` false), since mentions keep naming it. Every write moves the project's keywordsRevision on
//   and updates this process's matcher (ingest-matchers.ts). A keyword that changed group takes its
//   mentions with it (regroup.ts), after the revision moved on, so ingestion can tell it happened.
// - keyword groups: name and whether it is a default group (share of voice), removed when deleted, and
//   taken off the mentions (the keyword service moves a deleted group's keywords first).

/** A project's counts and analytics use its zone; `UTC` until an event says one. */
const DEFAULT_TIMEZONE = "UTC";

const apply = (deps: MentionDeps, change: ProjectChange, fields: Partial<Pick<ProjectStateDoc, "timezone" | "description" | "shareId" | "dashboardServed" | "dashboardMinRelevance">>) =>
  applyProjectChange(deps.collections.projects, change, { fields, defaults: { timezone: DEFAULT_TIMEZONE }, now: deps.clock.now() });

export const handleProjectEvent = async (deps: MentionDeps, event: ProjectEvent): Promise<void> => {
  if (event.type === "project.dashboard_changed") {
    // Not a change of state: the dashboard's share id and whether it is served, on the same copy.
    const { projectId, workspaceId, shareId, served, minRelevance } = event.data;
    // No bound is kept as 0 (bounds nothing), so a bound removed is overwritten rather than left behind.
    if (projectId && workspaceId) await apply(deps, { projectId, workspaceId }, { shareId, dashboardServed: served, dashboardMinRelevance: minRelevance ?? 0 });
    return;
  }
  const change = projectChangeOf(event);
  if (!change) return;
  const timezone = event.type === "project.created" || event.type === "project.updated" ? event.data.digestTimezone : undefined;
  // The description is the relevance prior's context; the event carries the project as it is afterwards.
  const description = event.type === "project.created" || event.type === "project.updated" ? event.data.project?.description : undefined;
  const before = event.type === "project.updated" && description ? await deps.collections.projects.findById(change.projectId) : null;
  await apply(deps, change, { timezone, description });
  // A new description is a new relevance prior: the last 30 days are rescored with it in the background.
  if (before && (before.description ?? "") !== description) void requestRescore(deps, change.projectId);
  if (change.status === "archived") deps.matchers.drop(change.projectId);
};

const keywordCopyOf = (d: KeywordChanged, now: Date): Omit<KeywordCopyDoc, "_id" | "_v"> => ({
  projectId: d.projectId,
  groupId: d.groupId,
  value: d.value,
  sources: sourcesIn(d.sources),
  aliases: d.aliases,
  excludedTerms: d.excludedTerms,
  filters: { ...d.filters },
  caseSensitive: d.caseSensitive,
  active: d.active,
  updatedAt: now,
});

/** Keyword fields the relevance prior reads (prior.ts). */
const PRIOR_FIELDS = ["value", "aliases", "excludedTerms"];

const handleKeyword = async (deps: MentionDeps, type: string, data: KeywordChanged) => {
  if (!data.keywordId || !data.projectId) return;
  // A deactivation carries the keyword as it is afterwards; said once more so no reading depends on it.
  const copy = { ...data, active: type !== "keyword.deactivated" && data.active };
  await deps.collections.keywords.updateOne({ _id: data.keywordId }, { $set: keywordCopyOf(copy, deps.clock.now()) }, { upsert: true });
  // After the copy, never before: a process that reads the new revision finds the copy written.
  const state = await deps.collections.projects.findOneAndUpdate({ _id: data.projectId }, { $inc: { keywordsRevision: 1 } });
  if (state) deps.matchers.applied(type, copy, state.keywordsRevision ?? 0);
  // The event's own list of changes, not a comparison with the copy: a redelivery after a crash between
  // the copy and this finds the copy already moved, and still regroups.
  if (data.fields.includes("groupId")) await regroupKeywordMentions(deps, data.projectId, data.keywordId);
  // The keywords' values, aliases and exclusions are the relevance prior's inputs: a keyword added,
  // deactivated or changed in one of them rescores the project in the background.
  if (type !== "keyword.updated" || PRIOR_FIELDS.some((f) => data.fields.includes(f))) void requestRescore(deps, data.projectId);
};

const handleGroup = async (deps: MentionDeps, type: string, data: KeywordGroupChanged) => {
  if (!data.groupId || !data.projectId) return;
  if (type === "keyword_group.deleted") {
    await deps.collections.groups.deleteOne({ _id: data.groupId });
    await dropDeletedGroup(deps, data.projectId, data.groupId);
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
