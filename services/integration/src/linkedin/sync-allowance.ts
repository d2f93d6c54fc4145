import { isUniqueViolation, usageLimited } from "@earshot/platform/core";
import type { IntegrationDeps } from "../domain/deps";
import type { LinkedinSyncDayDoc } from "../store";

// A workspace's LinkedIn syncs per UTC day, against its plan's `linkedinSyncsPerDay`. A sync takes its
// slot before it calls LinkedIn, with a conditional increment (`count < allowance`) that the store applies
// atomically, so racing syncs on any number of replicas never take more slots than the allowance; a lost
// race is refused, never retried into a conflict.

export const LINKEDIN_SYNCS_LIMIT = "linkedin_syncs";

/** `YYYY-MM-DD` of an instant, in UTC. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

const dayId = (workspaceId: string, day: string) => `${workspaceId}:${day}`;

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
  const _id = dayId(workspaceId, day);
  const slot: SyncSlot = {
    day,
    release: async () => {
      await deps.collections.linkedinSyncs.updateOne({ _id, count: { $gt: 0 } }, { $inc: { count: -1 }, $set: { updatedAt: deps.clock.now() } });
    },
  };
  if (allowance <= 0) throw usageLimited(LINKEDIN_SYNCS_LIMIT, allowance);
  // The first sync of the day inserts the day's document; two first syncs racing meet the unique _id and
  // the loser increments what the winner inserted.
  for (let attempt = 0; attempt < 3; attempt++) {
    const taken = await deps.collections.linkedinSyncs.findOneAndUpdate({ _id, count: { $lt: allowance } }, { $inc: { count: 1 }, $set: { updatedAt: now } });
    if (taken) return slot;
    if (await deps.collections.linkedinSyncs.findById(_id)) throw usageLimited(LINKEDIN_SYNCS_LIMIT, allowance);
    const doc: LinkedinSyncDayDoc = { _id, workspaceId, day, count: 1, updatedAt: now };
    try {
      await deps.collections.linkedinSyncs.insertOne(doc);
      return slot;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw usageLimited(LINKEDIN_SYNCS_LIMIT, allowance);
};
