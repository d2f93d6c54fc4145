import { type Collection, type Doc, isUniqueViolation } from "@earshot/platform/core";

// A count per day that many replicas add to at once without exceeding a limit (the YouTube budget, a
// workspace's LinkedIn syncs). Taking is one conditional increment the store applies atomically
// (`field <= limit - amount`); the day's first take inserts the document, and two first takes racing meet
// the unique _id, the loser then incrementing what the winner inserted. Nothing is read and retried under
// optimistic concurrency, so contention never turns into a conflict: a take is granted or refused.

/** `YYYY-MM-DD` of an instant, in UTC. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

export interface CounterTake {
  granted: boolean;
  /** The day's count after the take (granted) or as it stood (refused). */
  count: number;
}

export interface DailyCounter<T extends Doc> {
  collection: Collection<T>;
  /** The numeric field counted. */
  field: keyof T & string;
  /** The day's document as the first take inserts it, counting `amount` already. */
  firstOfDay(amount: number): T;
}

/** Adds `amount` to the document `_id` unless that would pass `limit`. */
export const takeFromDailyCounter = async <T extends Doc>(counter: DailyCounter<T>, _id: string, amount: number, limit: number, now: Date): Promise<CounterTake> => {
  const { collection, field } = counter;
  // Two rounds suffice: after a lost insert race the document exists, so the second round decides.
  for (let round = 0; round < 2; round++) {
    const taken = await collection.findOneAndUpdate({ _id, [field]: { $lte: limit - amount } }, { $inc: { [field]: amount }, $set: { updatedAt: now } });
    if (taken) return { granted: true, count: Number(taken[field]) };
    const current = await collection.findById(_id);
    if (current) return { granted: false, count: Number(current[field]) };
    if (amount > limit) return { granted: false, count: 0 };
    try {
      await collection.insertOne(counter.firstOfDay(amount));
      return { granted: true, count: amount };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  const current = await collection.findById(_id);
  return { granted: false, count: current ? Number(current[field]) : 0 };
};

/** Gives `amount` back to the document `_id` (never below zero). */
export const giveBackToDailyCounter = async <T extends Doc>(counter: DailyCounter<T>, _id: string, amount: number, now: Date): Promise<void> => {
  await counter.collection.updateOne({ _id, [counter.field]: { $gte: amount } }, { $inc: { [counter.field]: -amount }, $set: { updatedAt: now } });
};
