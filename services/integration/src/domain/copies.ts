import type { KeywordEvent, ProjectEvent } from "@earshot/contracts/events";
import { applyProjectChange, projectChangeOf, SOURCES, sourcesIn } from "@earshot/platform/core";
import type { CollectKeyword } from "../collectors/collector";
import type { KeywordCopyDoc, ProjectCopyDoc } from "../store";
import type { IntegrationDeps } from "./deps";
import { requestFirstSearch, sourcesToSearchFirst } from "./first-search";
import { reconcileProject } from "./pollers";

// What this service keeps of other services' events, and the pollers they start or stop:
// - projects (project events): the platform's project copy (workspace and status; archived is final, an
//   account deactivation arrives as its owner's projects paused and stops their pollers like any pause),
//   with the owner and the enabled sources.
// - keywords (keyword events): the whole keyword as the event carries it, `active` false once
//   deactivated. Events of one project arrive in order, but a replay may bring an older state again: the
//   keyword's own `updatedAt` decides, so an older state never overwrites a newer copy. A keyword new,
//   active again, or with a new value, aliases or sources asks for its first search (first-search.ts);
//   an event replayed changes nothing, so it asks nothing.

// A project always collects from at least one source, so an empty `enabledSources` is an event that did
// not say (read as every source when created).

/** The integration service's own fields of a project's copy, as a project event carries them. */
const ownFields = (event: ProjectEvent): Partial<Pick<ProjectCopyDoc, "ownerId" | "enabledSources">> => {
  switch (event.type) {
    case "project.created":
      return { ownerId: event.data.ownerId, enabledSources: event.data.enabledSources.length > 0 ? sourcesIn(event.data.enabledSources) : [...SOURCES] };
    case "project.updated":
      return event.data.enabledSources.length > 0 ? { enabledSources: sourcesIn(event.data.enabledSources) } : {};
    default:
      return {};
  }
};

export const handleProjectEvent = async (deps: IntegrationDeps, event: ProjectEvent): Promise<void> => {
  const change = projectChangeOf(event);
  if (!change) return;
  // A project first heard of through a later event (its created event lost) collects from every source
  // until an event says otherwise, as a new project does.
  await applyProjectChange(deps.collections.projects, change, { fields: ownFields(event), defaults: { enabledSources: [...SOURCES] }, now: deps.clock.now() });
  await reconcileProject(deps, change.projectId);
};

/** A filter list, or undefined when it is empty (no filter). */
const listOrNone = (items: readonly string[] | undefined): string[] | undefined => (items && items.length > 0 ? [...items] : undefined);

const instantOf = (v: string, fallback: string): Date => {
  const d = new Date(v || fallback);
  return Number.isNaN(d.getTime()) ? new Date(fallback) : d;
};

/** Applies a keyword event to the keyword copy; what changed, for reconciling, or undefined when nothing did. */
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
    sources: sourcesIn(data.sources),
    filters,
    // A deactivation carries the keyword as it is afterwards; said once more so no reading depends on it.
    active: event.type !== "keyword.deactivated" && data.active,
    updatedAt,
  };
  await deps.collections.keywords.updateOne({ _id: data.keywordId }, { $set: copy }, { upsert: true });
  return { projectId: data.projectId, keywordId: data.keywordId, current, copy };
};

/**
 * Keyword events into the keyword copies, then each project they touched reconciled once (its pollers read
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
