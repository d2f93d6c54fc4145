import { type CloudEvent, SOURCES, type Source } from "@earshot/platform/core";
import type { CollectKeyword } from "../collectors/collector";
import type { KeywordCopyDoc, ProjectCopyDoc } from "../store";
import type { IntegrationDeps } from "./deps";
import { reconcileProject } from "./pollers";

// What this service keeps of other services' events, and the pollers they start or stop:
// - projects (earshot.project.v1): workspace, owner, status and enabled sources. Archived is final: a late
//   or replayed event never revives a project. An account deactivation arrives as its owner's projects
//   paused, so it stops their pollers like any pause.
// - keywords (earshot.keyword.v1): the whole keyword as the event carries it, `active` false once
//   deactivated. Events of one project arrive in order, but a replay may bring an older state again: the
//   keyword's own `updatedAt` decides, so an older state never overwrites a newer copy.

const STATUSES = new Set<string>(["active", "paused", "archived"]);

interface ProjectEventData {
  projectId?: unknown;
  workspaceId?: unknown;
  ownerId?: unknown;
  status?: unknown;
  enabledSources?: unknown;
}

interface KeywordEventData {
  keywordId?: unknown;
  projectId?: unknown;
  value?: unknown;
  aliases?: unknown;
  excludedTerms?: unknown;
  caseSensitive?: unknown;
  sources?: unknown;
  filters?: unknown;
  active?: unknown;
  updatedAt?: unknown;
}

const text = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);

/** The sources of an event's list, in SOURCES order; undefined when the event carries none. */
const sourcesOf = (v: unknown): Source[] | undefined => {
  if (!Array.isArray(v)) return undefined;
  return SOURCES.filter((s) => v.includes(s));
};

const setProject = async (deps: IntegrationDeps, projectId: string, fields: Partial<Omit<ProjectCopyDoc, "_id" | "_v" | "updatedAt">>) => {
  const current = await deps.collections.projects.findById(projectId);
  if (current?.status === "archived") return;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  // A project first heard of through a later event (its created event lost) collects from every source
  // until an event says otherwise, as a new project does.
  const defaults = current ? {} : { enabledSources: [...SOURCES], status: "active" };
  await deps.collections.projects.updateOne({ _id: projectId }, { $set: { ...defaults, ...defined, updatedAt: deps.clock.now() } }, { upsert: true });
};

export const handleProjectEvent = async (deps: IntegrationDeps, event: CloudEvent): Promise<void> => {
  const data = (event.data ?? {}) as ProjectEventData;
  const projectId = text(data.projectId);
  const workspaceId = text(data.workspaceId);
  if (!projectId || !workspaceId) return;
  const status = typeof data.status === "string" && STATUSES.has(data.status) ? (data.status as ProjectCopyDoc["status"]) : undefined;
  switch (event.type) {
    case "project.created":
      await setProject(deps, projectId, { workspaceId, ownerId: text(data.ownerId), status: "active", enabledSources: sourcesOf(data.enabledSources) ?? [...SOURCES] });
      break;
    case "project.updated":
      await setProject(deps, projectId, { workspaceId, ownerId: text(data.ownerId), status, enabledSources: sourcesOf(data.enabledSources) });
      break;
    case "project.archived":
      await setProject(deps, projectId, { workspaceId, status: "archived" });
      break;
    default:
      return;
  }
  await reconcileProject(deps, projectId);
};

const filtersOf = (v: unknown): CollectKeyword["filters"] => {
  const f = (v && typeof v === "object" ? v : {}) as Record<string, unknown>;
  const list = (name: string) => {
    const items = strings(f[name]);
    return items.length > 0 ? items : undefined;
  };
  return {
    languages: list("languages"),
    minFollowers: typeof f.minFollowers === "number" ? f.minFollowers : undefined,
    excludeAuthors: list("excludeAuthors"),
    subreddits: list("subreddits"),
    youtubeChannels: list("youtubeChannels"),
    allOf: list("allOf"),
  };
};

const instantOf = (v: unknown, fallback: string): Date => {
  const d = new Date(typeof v === "string" ? v : fallback);
  return Number.isNaN(d.getTime()) ? new Date(fallback) : d;
};

export const handleKeywordEvent = async (deps: IntegrationDeps, event: CloudEvent): Promise<void> => {
  if (!["keyword.created", "keyword.updated", "keyword.deactivated"].includes(event.type)) return;
  const data = (event.data ?? {}) as KeywordEventData;
  const keywordId = text(data.keywordId);
  const projectId = text(data.projectId);
  if (!keywordId || !projectId || typeof data.value !== "string") return;
  const updatedAt = instantOf(data.updatedAt, event.time);
  const current = await deps.collections.keywords.findById(keywordId);
  if (current && current.updatedAt.getTime() > updatedAt.getTime()) return;
  const copy: Omit<KeywordCopyDoc, "_id" | "_v"> = {
    projectId,
    value: data.value,
    aliases: strings(data.aliases),
    excludedTerms: strings(data.excludedTerms),
    caseSensitive: data.caseSensitive === true,
    sources: sourcesOf(data.sources) ?? [],
    filters: filtersOf(data.filters),
    // A deactivation carries the keyword as it is afterwards; said once more so no reading depends on it.
    active: event.type !== "keyword.deactivated" && data.active === true,
    updatedAt,
  };
  await deps.collections.keywords.updateOne({ _id: keywordId }, { $set: copy }, { upsert: true });
  await reconcileProject(deps, projectId);
};
