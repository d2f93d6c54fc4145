import type { KeywordEvent, ProjectEvent } from "@earshot/contracts/events";
import { SOURCES, type Source } from "@earshot/platform/core";
import type { CollectKeyword } from "../collectors/collector";
import type { KeywordCopyDoc, ProjectCopyDoc } from "../store";
import type { IntegrationDeps } from "./deps";
import { requestFirstSearch, sourcesToSearchFirst } from "./first-search";
import { reconcileProject } from "./pollers";

// What this service keeps of other services' events, and the pollers they start or stop:
// - projects (project events): workspace, owner, status and enabled sources. Archived is final: a late
//   or replayed event never revives a project. An account deactivation arrives as its owner's projects
//   paused, so it stops their pollers like any pause.
// - keywords (keyword events): the whole keyword as the event carries it, `active` false once
//   deactivated. Events of one project arrive in order, but a replay may bring an older state again: the
//   keyword's own `updatedAt` decides, so an older state never overwrites a newer copy. A keyword new,
//   active again, or with a new value, aliases or sources asks for its first search (first-search.ts);
//   an event replayed changes nothing, so it asks nothing.

const STATUSES = new Set<string>(["active", "paused", "archived"]);

/**
 * The sources of an event's list, in SOURCES order. A project always collects from at least one source,
 * so an empty `enabledSources` is an event that did not say (read as every source when created).
 */
const sourcesOf = (listed: readonly string[]): Source[] => SOURCES.filter((s) => listed.includes(s));

const setProject = async (deps: IntegrationDeps, projectId: string, fields: Partial<Omit<ProjectCopyDoc, "_id" | "_v" | "updatedAt">>) => {
  const current = await deps.collections.projects.findById(projectId);
  if (current?.status === "archived") return;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  // A project first heard of through a later event (its created event lost) collects from every source
  // until an event says otherwise, as a new project does.
  const defaults = current ? {} : { enabledSources: [...SOURCES], status: "active" };
  await deps.collections.projects.updateOne({ _id: projectId }, { $set: { ...defaults, ...defined, updatedAt: deps.clock.now() } }, { upsert: true });
};

export const handleProjectEvent = async (deps: IntegrationDeps, event: ProjectEvent): Promise<void> => {
  const { projectId, workspaceId } = event.data;
  if (!projectId || !workspaceId) return;
  switch (event.type) {
    case "project.created": {
      const { ownerId, enabledSources } = event.data;
      await setProject(deps, projectId, { workspaceId, ownerId: ownerId || undefined, status: "active", enabledSources: enabledSources.length > 0 ? sourcesOf(enabledSources) : [...SOURCES] });
      break;
    }
    case "project.updated": {
      const { status, enabledSources } = event.data;
      await setProject(deps, projectId, {
        workspaceId,
        status: STATUSES.has(status) ? (status as ProjectCopyDoc["status"]) : undefined,
        enabledSources: enabledSources.length > 0 ? sourcesOf(enabledSources) : undefined,
      });
      break;
    }
    case "project.archived":
      await setProject(deps, projectId, { workspaceId, status: "archived" });
      break;
    default:
      return;
  }
  await reconcileProject(deps, projectId);
};

/** A filter list, or undefined when it is empty (no filter). */
const listOrNone = (items: readonly string[] | undefined): string[] | undefined => (items && items.length > 0 ? [...items] : undefined);

const instantOf = (v: string, fallback: string): Date => {
  const d = new Date(v || fallback);
  return Number.isNaN(d.getTime()) ? new Date(fallback) : d;
};

/** Applies a keyword event to the keyword replica; what changed, for reconciling, or undefined when nothing did. */
const applyKeywordEvent = async (deps: IntegrationDeps, event: KeywordEvent) => {
  if (event.type !== "keyword.created" && event.type !== "keyword.updated" && event.type !== "keyword.deactivated") return undefined;
  const data = event.data;
  if (!data.keywordId || !data.projectId || !data.value) return undefined;
  const updatedAt = instantOf(data.updatedAt, event.time);
  const current = await deps.collections.keywords.findById(data.keywordId);
  if (current && current.updatedAt.getTime() > updatedAt.getTime()) return undefined;
  const f = data.filters;
  const filters: CollectKeyword["filters"] = {
    languages: listOrNone(f?.languages),
    minFollowers: f?.minFollowers,
    excludeAuthors: listOrNone(f?.excludeAuthors),
    subreddits: listOrNone(f?.subreddits),
    youtubeChannels: listOrNone(f?.youtubeChannels),
    allOf: listOrNone(f?.allOf),
  };
  const copy: Omit<KeywordCopyDoc, "_id" | "_v"> = {
    projectId: data.projectId,
    value: data.value,
    aliases: data.aliases,
    excludedTerms: data.excludedTerms,
    caseSensitive: data.caseSensitive,
    sources: sourcesOf(data.sources),
    filters,
    // A deactivation carries the keyword as it is afterwards; said once more so no reading depends on it.
    active: event.type !== "keyword.deactivated" && data.active,
    updatedAt,
  };
  await deps.collections.keywords.updateOne({ _id: data.keywordId }, { $set: copy }, { upsert: true });
  return { projectId: data.projectId, keywordId: data.keywordId, current, copy };
};

/**
 * Keyword events into the keyword replica, then each project they touched reconciled once (its pollers read
 * its keywords once per batch, not once per event: a project's thousand keywords created together cost one
 * read of them, not a thousand), and each keyword's first search requested.
 */
export const handleKeywordEvents = async (deps: IntegrationDeps, events: KeywordEvent[]): Promise<void> => {
  const applied = [];
  for (const event of events) {
    const change = await applyKeywordEvent(deps, event);
    if (change) applied.push(change);
  }
  for (const projectId of new Set(applied.map((c) => c.projectId))) {
    const facts = await reconcileProject(deps, projectId);
    for (const c of applied.filter((a) => a.projectId === projectId)) {
      await requestFirstSearch(deps, facts, projectId, c.keywordId, sourcesToSearchFirst(c.current, c.copy));
    }
  }
};

export const handleKeywordEvent = (deps: IntegrationDeps, event: KeywordEvent): Promise<void> => handleKeywordEvents(deps, [event]);
