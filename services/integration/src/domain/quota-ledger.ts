import { type Clock, isUniqueViolation, type Source, VersionConflictError, withVersionRetry } from "@earshot/platform/core";
import type { QuotaLedger } from "../collectors/collector";
import type { IntegrationSettings } from "../config";
import { type IntegrationCollections, QUOTAS } from "../store";

// Daily provider budgets shared by every replica: one document per (source, UTC day), taken from under
// optimistic concurrency so two replicas spending at once never exceed the budget between them. Only
// YouTube meters per key and day; the other sources have no budget of ours (their windows are the
// provider's rate-limit headers) and are granted whatever they ask.

const DAY_MS = 24 * 3600 * 1000;

/** Two replicas polling at once conflict often on one document; a few more attempts than the default. */
const TAKE_ATTEMPTS = 20;

export const utcDay = (now: Date): string => now.toISOString().slice(0, 10);

export const nextUtcMidnight = (now: Date): Date => new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);

const quotaId = (source: Source, day: string) => `${source}:${day}`;

export const createQuotaLedger = (collections: IntegrationCollections, settings: IntegrationSettings, clock: Clock): QuotaLedger => {
  const budgetOf = (source: Source): number | undefined => (source === "youtube" ? settings.EARSHOT_YOUTUBE_DAILY_QUOTA : undefined);

  const left = async (source: Source, now: Date) => {
    const budget = budgetOf(source);
    const resetAt = nextUtcMidnight(now);
    if (budget === undefined) return { left: Number.POSITIVE_INFINITY, resetAt };
    const doc = await collections.quotas.findById(quotaId(source, utcDay(now)));
    return { left: Math.max(0, budget - (doc?.used ?? 0)), resetAt };
  };

  const take = async (source: Source, units: number, now: Date) => {
    const budget = budgetOf(source);
    const resetAt = nextUtcMidnight(now);
    if (budget === undefined) return { granted: true, left: Number.POSITIVE_INFINITY, resetAt };
    const day = utcDay(now);
    const id = quotaId(source, day);
    return withVersionRetry(
      async () => {
        const doc = await collections.quotas.findById(id);
        const used = doc?.used ?? 0;
        if (used + units > budget) return { granted: false, left: Math.max(0, budget - used), resetAt };
        if (!doc) {
          try {
            await collections.quotas.insertOne({ _id: id, source, day, used: units, updatedAt: clock.now() });
          } catch (err) {
            // Another replica opened the day first: read its document and take from it.
            if (isUniqueViolation(err)) throw new VersionConflictError(QUOTAS, id);
            throw err;
          }
        } else {
          await collections.quotas.updateVersioned(id, doc._v ?? 1, { $inc: { used: units }, $set: { updatedAt: clock.now() } });
        }
        return { granted: true, left: budget - used - units, resetAt };
      },
      { attempts: TAKE_ATTEMPTS, conflictMessage: `The ${source} quota is contended; try again.` },
    );
  };

  return { take, left };
};
