import type { Source } from "@earshot/platform/core";
import type { QuotaLedger } from "../collectors/collector";
import { nextPacificMidnight } from "../collectors/youtube-quota-reset";
import type { IntegrationSettings } from "../config";
import type { IntegrationCollections, QuotaDoc } from "../store";
import { type DailyCounter, takeFromDailyCounter, utcDay } from "./daily-counter";

// Daily provider budgets shared by every replica: one document per (source, day), taken from with the
// store's conditional increment, so replicas spending at once never exceed the budget between them and
// contention never fails a poll. Only YouTube meters per key and day, and its day is Google's: quotas
// reset at midnight Pacific time, so the day key and the reset follow that midnight, not UTC's. The other
// sources have no budget of ours (their windows are the provider's rate-limit headers) and are granted
// whatever they ask.

const DAY_MS = 24 * 3600 * 1000;

/**
 * The budget day of `now`: the Pacific calendar date, which is the UTC date a day before the reset
 * (Pacific midnight falls at 07:00 or 08:00 UTC, so a day earlier is still that date in UTC).
 */
export const youtubeQuotaDay = (now: Date): string => utcDay(new Date(nextPacificMidnight(now).getTime() - DAY_MS));

const quotaId = (source: Source, day: string) => `${source}:${day}`;

export const createQuotaLedger = (collections: IntegrationCollections, settings: IntegrationSettings): QuotaLedger => {
  const budgetOf = (source: Source): number | undefined => (source === "youtube" ? settings.EARSHOT_YOUTUBE_DAILY_QUOTA : undefined);

  const left = async (source: Source, now: Date) => {
    const budget = budgetOf(source);
    const resetAt = nextPacificMidnight(now);
    if (budget === undefined) return { left: Number.POSITIVE_INFINITY, resetAt };
    const doc = await collections.quotas.findById(quotaId(source, youtubeQuotaDay(now)));
    return { left: Math.max(0, budget - (doc?.used ?? 0)), resetAt };
  };

  const take = async (source: Source, units: number, now: Date) => {
    const budget = budgetOf(source);
    const resetAt = nextPacificMidnight(now);
    if (budget === undefined) return { granted: true, left: Number.POSITIVE_INFINITY, resetAt };
    const day = youtubeQuotaDay(now);
    const counter: DailyCounter<QuotaDoc> = {
      collection: collections.quotas,
      field: "used",
      firstOfDay: (used) => ({ _id: quotaId(source, day), source, day, used, updatedAt: now }),
    };
    const taken = await takeFromDailyCounter(counter, quotaId(source, day), units, budget, now);
    return { granted: taken.granted, left: Math.max(0, budget - taken.count), resetAt };
  };

  return { take, left };
};
