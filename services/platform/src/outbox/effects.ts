import type { Doc } from "../store/port";
import { isUniqueViolation, isVersionConflict } from "../store/port";

// Effects make a create verb safe to run twice with one idempotency key. The edge answers a retried key
// from its own record, but that record and the service's commit are two stores: a process killed after the
// commit and before the edge recorded the answer leaves a retry that reaches the service again. The verb
// therefore commits `{ _id: <key>, resourceId }` together with what it creates; a re-run finds it and
// answers with the existing resource instead of creating another.

export const EFFECTS_COLLECTION = "effects";

/** As long as the edge keeps an idempotency key: a retry after that is a new request there too. */
export const KEEP_EFFECTS_SECONDS = 24 * 3600;

/**
 * Whether a record is past its keep time by the service's clock. The store's TTL index deletes it only
 * when its expiry job runs (MongoDB: once a minute, later under load), so a lookup must not trust a
 * record merely for being there.
 */
export const isEffectExpired = (record: EffectRecord, now: Date): boolean =>
  record.createdAt.getTime() + KEEP_EFFECTS_SECONDS * 1000 <= now.getTime();

export interface EffectRecord extends Doc {
  resourceId: string;
  createdAt: Date;
}

export interface EffectWrite {
  key: string;
  resourceId: string;
  /** Points an existing record at another resource (replaced at the version read). */
  replaces?: EffectRecord;
}

/** A commit refused because another run with the same key recorded its effect first (or took over an expired one first). */
export const isEffectClash = (err: unknown): boolean => (isUniqueViolation(err) || isVersionConflict(err)) && err.collection === EFFECTS_COLLECTION;

export interface EffectLookup {
  effectOf(key: string): Promise<EffectRecord | null>;
}

/**
 * Runs `run` unless an earlier run with `key` committed its effect, in which case `replay` answers from
 * that effect. Two runs racing with one key both pass the first look; the loser's commit clashes on the
 * effect record (nothing of it is stored) and it replays the winner's. Without a key, `run` just runs.
 */
export const runOnce = async <T>(
  effects: EffectLookup,
  key: string | undefined,
  replay: (effect: EffectRecord) => Promise<T>,
  run: () => Promise<T>,
): Promise<T> => {
  if (!key) return run();
  const earlier = await effects.effectOf(key);
  if (earlier) return replay(earlier);
  try {
    return await run();
  } catch (err) {
    if (!isEffectClash(err)) throw err;
    const winner = await effects.effectOf(key);
    if (!winner) throw err;
    return replay(winner);
  }
};
