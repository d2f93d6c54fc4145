import type { Source } from "@earshot/platform/core";
import { type FirstSearchDoc, firstSearchId, type KeywordCopyDoc, type PollerDoc, pollerId } from "../store";
import type { IntegrationDeps } from "./deps";
import { idleReason, type PollerFacts } from "./pollers";

// A keyword added or changed after its sources' pollers ran would otherwise wait for their next regular
// poll, and that poll looks back only one interval for a query it never asked before. So a new keyword,
// or one whose value, aliases or sources change, is searched at once and alone on each source it names
// that is collected and searched by keyword: its first search, looking back the first-search window
// (EARSHOT_FIRST_SEARCH_LOOKBACK_HOURS; each collector caps it at what its platform's search reaches).
// It is asked for with one document per (project, source, keyword) and run by the scheduler under the
// poller's lease, so it never runs beside a poll of the same source and spends the same provider budgets;
// it waits while the source backs off, and it leaves the poller's cursor and next regular poll as they
// were (poll.ts commits it).

export const firstSearchLookbackMs = (deps: IntegrationDeps): number => deps.settings.EARSHOT_FIRST_SEARCH_LOOKBACK_HOURS * 3_600_000;

type Searched = Pick<KeywordCopyDoc, "value" | "aliases" | "sources" | "active">;

const sameTerms = (a: readonly string[], b: readonly string[]): boolean => {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((t, i) => t === y[i]);
};

/**
 * The sources a keyword's change gives something new to find: every source it names when it is new, active
 * again, or its value or aliases changed; the sources added when only its sources changed; none otherwise
 * (exclusions and filters only narrow what the mention service keeps of what is found).
 */
export const sourcesToSearchFirst = (before: Searched | null, after: Searched): Source[] => {
  if (!after.active) return [];
  if (!before?.active || before.value !== after.value || !sameTerms(before.aliases, after.aliases)) return [...after.sources];
  return after.sources.filter((s) => !before.sources.includes(s));
};

/** Asks a keyword's first search on those of `sources` the project collects and that are searched by keyword. */
export const requestFirstSearch = async (deps: IntegrationDeps, facts: PollerFacts, projectId: string, keywordId: string, sources: readonly Source[]): Promise<void> => {
  const now = deps.clock.now();
  for (const source of sources) {
    if (!deps.collectors[source].searchesKeywords || idleReason(deps, facts, source) !== null) continue;
    await deps.collections.firstSearches.updateOne(
      { _id: firstSearchId(projectId, source, keywordId) },
      { $set: { projectId, source, keywordId, pollerId: pollerId(projectId, source), requestedAt: now, dueAt: now } },
      { upsert: true },
    );
  }
};

export interface DueFirstSearch {
  poller: PollerDoc;
  requests: FirstSearchDoc[];
}

/** Done, or moot: removed, unless the keyword asked again meanwhile (which moved the request's version on). */
export const settleFirstSearches = async (deps: IntegrationDeps, requests: readonly FirstSearchDoc[]): Promise<void> => {
  for (const r of requests) await deps.collections.firstSearches.deleteOne({ _id: r._id, _v: r._v });
};

/** Due again at `until` (the end of the source's backoff, or the next try after a failure). */
export const deferFirstSearches = async (deps: IntegrationDeps, requests: readonly FirstSearchDoc[], until: Date): Promise<void> => {
  for (const r of requests) await deps.collections.firstSearches.updateOne({ _id: r._id, _v: r._v }, { $set: { dueAt: until } });
};

/**
 * The first searches due now, by poller. A source backing off moves its requests to the end of the backoff
 * (so they are not looked at, nor the provider asked, before); a source no longer collected drops them; a
 * poller `busy` (polled now, or due for its regular poll) keeps them for a later tick.
 */
export const dueFirstSearches = async (deps: IntegrationDeps, limit: number, busy: (poller: PollerDoc) => boolean): Promise<DueFirstSearch[]> => {
  const now = deps.clock.now();
  const requests = await deps.collections.firstSearches.find({ dueAt: { $lte: now } }, { sort: { dueAt: 1 }, limit });
  const byPoller = new Map<string, FirstSearchDoc[]>();
  for (const r of requests) byPoller.set(r.pollerId, [...(byPoller.get(r.pollerId) ?? []), r]);
  const out: DueFirstSearch[] = [];
  for (const [id, mine] of byPoller) {
    const poller = await deps.collections.pollers.findById(id);
    if (!poller?.enabled) {
      await settleFirstSearches(deps, mine);
      continue;
    }
    if (poller.backoffUntil && poller.backoffUntil > now) {
      await deferFirstSearches(deps, mine, poller.backoffUntil);
      continue;
    }
    if (!busy(poller)) out.push({ poller, requests: mine });
  }
  return out;
};

/** When the next first search is due, if any is waiting. */
export const nextFirstSearchAt = async (deps: IntegrationDeps): Promise<Date | undefined> => {
  const [next] = await deps.collections.firstSearches.find({}, { sort: { dueAt: 1 }, limit: 1 });
  return next?.dueAt;
};
