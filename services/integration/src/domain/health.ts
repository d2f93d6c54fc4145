import { SOURCES, type Source } from "@earshot/platform/core";
import type { PollRecordDoc } from "../store";
import { accessProject } from "./access";
import { failingFeedNotes } from "./feeds";
import type { Caller, IntegrationDeps } from "./deps";
import { idleReason, readPollerFacts } from "./pollers";

// How collection is going for each source of a project (get_source_health): the poller's own figures
// (last success, last error, backoff, next poll, provider quota) and the last 24 h of poll records
// (posts found, detection lag = collectedAt - publishedAt), and when a new or changed keyword was last
// searched there at once (first-search.ts). Any member may read it.

export type SourceState = "collecting" | "idle" | "stopped" | "backing_off";

export interface SourceHealth {
  source: Source;
  state: SourceState;
  lastSuccessAt?: Date;
  lastError?: { at: Date; message: string; status: number };
  postsLast24h: number;
  backoffUntil?: Date;
  quotaLeft?: number;
  detectionLag?: { p50Ms: number; p95Ms: number };
  nextPollAt?: Date;
  /** When the last first search of a new or changed keyword ran on this source. */
  firstSearchAt?: Date;
  simulated: boolean;
  /** What an operator should know: why the source is idle, a limit it runs under, a part of it that is off. */
  notes: string[];
}

const DAY_MS = 24 * 3600 * 1000;

/** Nearest-rank percentile of sorted values. */
export const percentile = (sorted: readonly number[], p: number): number => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;

const lagOf = (records: PollRecordDoc[]): SourceHealth["detectionLag"] => {
  const lags = records.flatMap((r) => r.lagsMs).sort((a, b) => a - b);
  if (lags.length === 0) return undefined;
  return { p50Ms: percentile(lags, 50), p95Ms: percentile(lags, 95) };
};

export const getSourceHealth = async (deps: IntegrationDeps, caller: Caller, projectId: string): Promise<SourceHealth[]> => {
  await accessProject(deps, caller, projectId, "viewer");
  const now = deps.clock.now();
  const [facts, pollers, records] = await Promise.all([
    readPollerFacts(deps, projectId),
    deps.collections.pollers.find({ projectId }),
    deps.collections.pollRecords.find({ projectId, at: { $gt: new Date(now.getTime() - DAY_MS) } }),
  ]);
  const stopped = facts.project !== null && facts.project.status !== "active";
  const out: SourceHealth[] = [];
  for (const source of SOURCES) {
    const poller = pollers.find((p) => p.source === source);
    const mine = records.filter((r) => r.source === source);
    const backoffUntil = poller?.backoffUntil && poller.backoffUntil > now ? poller.backoffUntil : undefined;
    const idle = idleReason(deps, facts, source);
    const collecting = poller?.enabled === true && idle === null;
    const state: SourceState = stopped ? "stopped" : !collecting ? "idle" : backoffUntil ? "backing_off" : "collecting";
    const quotaLeft = source === "youtube" ? (await deps.quota.left(source, now)).left : poller?.quotaLeft;
    out.push({
      source,
      state,
      lastSuccessAt: poller?.lastSuccessAt,
      lastError: poller?.lastError,
      postsLast24h: mine.reduce((n, r) => n + r.found, 0),
      backoffUntil,
      quotaLeft: quotaLeft !== undefined && Number.isFinite(quotaLeft) ? quotaLeft : undefined,
      detectionLag: lagOf(mine),
      nextPollAt: collecting ? poller.nextPollAt : undefined,
      firstSearchAt: poller?.firstSearchAt,
      simulated: deps.simulated.has(source),
      notes: [
        ...(!stopped && idle !== null ? [`Idle: ${idle}.`] : []), ...(deps.collectors[source].notes ?? []), ...(collecting ? ((await deps.collectors[source].status?.()) ?? []) : []),
        ...(source === "rss" ? await failingFeedNotes(deps, projectId, now) : []),
      ],
    });
  }
  return out;
};
