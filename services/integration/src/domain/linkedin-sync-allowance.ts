import { usageLimited } from "@earshot/platform/core";
import { type DailyCounter, giveBackToDailyCounter, takeFromDailyCounter, utcDay } from "./daily-counter";
import type { IntegrationDeps } from "./deps";
import type { LinkedinSyncDayDoc } from "../store";

// A workspace's LinkedIn syncs per UTC day, against its plan's `linkedinSyncsPerDay`. A sync takes its
// slot before it calls LinkedIn, with the daily counter's conditional increment (`count < allowance`)
// that the store applies atomically, so racing syncs on any number of replicas never take more slots
// than the allowance; a lost race is refused, never retried into a conflict.

export const LINKEDIN_SYNCS_LIMIT = "linkedin_syncs";

const dayId = (workspaceId: string, day: string) => `${workspaceId}:${day}`;

const syncCounter = (deps: IntegrationDeps, workspaceId: string, day: string, now: Date): DailyCounter<LinkedinSyncDayDoc> => ({
  collection: deps.collections.linkedinSyncs,
  field: "count",
  firstOfDay: (count) => ({ _id: dayId(workspaceId, day), workspaceId, day, count, updatedAt: now }),
});

/** The syncs the workspace ran on the UTC day of `at`. */
export const syncsOn = async (deps: IntegrationDeps, workspaceId: string, at: Date): Promise<number> =>
  (await deps.collections.linkedinSyncs.findById(dayId(workspaceId, utcDay(at))))?.count ?? 0;

/** A slot taken for one sync: `release` gives it back (for a sync the provider refused). */
export interface SyncSlot {
  day: string;
  release(): Promise<void>;
}

/** Takes one of today's slots, or refuses `usage_limited` (limit `linkedin_syncs`) when none is left. */
export const takeSyncSlot = async (deps: IntegrationDeps, workspaceId: string, allowance: number): Promise<SyncSlot> => {
  const now = deps.clock.now();
  const day = utcDay(now);
  const counter = syncCounter(deps, workspaceId, day, now);
  if (allowance <= 0) throw usageLimited(LINKEDIN_SYNCS_LIMIT, allowance);
  const taken = await takeFromDailyCounter(counter, dayId(workspaceId, day), 1, allowance, now);
  if (!taken.granted) throw usageLimited(LINKEDIN_SYNCS_LIMIT, allowance);
  return { day, release: () => giveBackToDailyCounter(counter, dayId(workspaceId, day), 1, deps.clock.now()) };
};
