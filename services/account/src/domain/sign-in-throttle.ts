import { DomainError, isUniqueViolation, isVersionConflict, rateLimited } from "@earshot/platform/core";
import type { SignInFailureDoc } from "../store";
import type { AccountDeps } from "./deps";

// Brute-force protection for password sign-in. Failures are counted per account (its email, known or
// not, so the lock-out does not tell which addresses have accounts) and per client address, in the
// service's store so every replica agrees. After a few free failures each further one locks the key for
// twice as long as the one before (1 s, 2 s, 4 s … up to 15 min); while locked, attempts are refused
// without checking the password, so even the right one does not get in. An attempt is counted BEFORE
// the slow password check and given back on success, so concurrent attempts cannot all slip in while
// the first ones are still being checked.

export interface ThrottlePolicy {
  /** Failures allowed before the first lock-out. */
  freeFailures: number;
  firstLockMs: number;
  maxLockMs: number;
}

/** A key with no failure for this long starts again from zero (longer than the longest lock). */
export const FORGET_AFTER_MS = 3600_000;

export const ACCOUNT_POLICY: ThrottlePolicy = { freeFailures: 5, firstLockMs: 1000, maxLockMs: 15 * 60_000 };
// An address may carry many people (an office behind one NAT), so it gets more free failures; a success
// does not clear it, or one valid account would let an address try passwords on every other one.
export const ADDRESS_POLICY: ThrottlePolicy = { freeFailures: 20, firstLockMs: 1000, maxLockMs: 15 * 60_000 };

/** How long a key is locked after its `failures`-th failure in a row. */
export const lockMs = (failures: number, policy: ThrottlePolicy): number =>
  failures < policy.freeFailures ? 0 : Math.min(policy.firstLockMs * 2 ** (failures - policy.freeFailures), policy.maxLockMs);

export interface ThrottleKey {
  id: string;
  policy: ThrottlePolicy;
}

export const accountKey = (normalizedEmail: string): ThrottleKey => ({ id: `account:${normalizedEmail}`, policy: ACCOUNT_POLICY });
export const addressKey = (address: string): ThrottleKey => ({ id: `address:${address}`, policy: ADDRESS_POLICY });

const isForgotten = (doc: SignInFailureDoc, now: number): boolean => doc.lastFailureAt.getTime() + FORGET_AFTER_MS <= now;

/** Milliseconds until the key may try again (0 when it may now). */
const lockedForMs = (doc: SignInFailureDoc | null, policy: ThrottlePolicy, now: number): number => {
  if (!doc || isForgotten(doc, now)) return 0;
  return Math.max(0, doc.lastFailureAt.getTime() + lockMs(doc.failures, policy) - now);
};

const refuse = (waitMs: number) => {
  const seconds = Math.ceil(waitMs / 1000);
  return rateLimited(seconds, `Too many sign-in attempts. Try again in ${seconds} second${seconds === 1 ? "" : "s"}.`);
};

/** A key's attempt taken before the password is checked: the stored state before it and the version it wrote. */
export interface Reservation {
  key: ThrottleKey;
  before: SignInFailureDoc | null;
  version: number;
}

// Concurrent attempts race here; each round of the loop either reserves, refuses or sees someone else's
// write, so a few rounds per concurrent attempt are enough.
const MAX_ROUNDS = 1000;

const isLostRace = (err: unknown): boolean =>
  isVersionConflict(err) || isUniqueViolation(err) || (err instanceof DomainError && err.code === "not_found");

/**
 * Takes one attempt against the key, counted as a failure until it succeeds, or refuses with
 * `rate_limited` while the key is locked. A compare-and-set on the stored version, so of many concurrent
 * attempts only as many get through as the schedule allows: the password is checked only for those.
 */
const reserveOne = async (deps: AccountDeps, key: ThrottleKey): Promise<Reservation> => {
  const failures = deps.collections.signInFailures;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const now = deps.clock.now();
    const doc = await failures.findById(key.id);
    const waitMs = lockedForMs(doc, key.policy, now.getTime());
    if (waitMs > 0) throw refuse(waitMs);
    try {
      if (!doc) {
        const stored = await failures.insertOne({ _id: key.id, failures: 1, lastFailureAt: now });
        return { key, before: null, version: stored._v ?? 1 };
      }
      const count = isForgotten(doc, now.getTime()) ? 1 : doc.failures + 1;
      const stored = await failures.updateVersioned(key.id, doc._v ?? 1, { $set: { failures: count, lastFailureAt: now } });
      return { key, before: doc, version: stored._v ?? 1 };
    } catch (err) {
      if (!isLostRace(err)) throw err;
    }
  }
  throw refuse(key.policy.firstLockMs);
};

/** Gives an attempt back: the key returns to its state before it, or loses one count if others wrote since. */
export const release = async (deps: AccountDeps, r: Reservation): Promise<void> => {
  const failures = deps.collections.signInFailures;
  try {
    if (r.before) {
      await failures.updateVersioned(r.key.id, r.version, { $set: { failures: r.before.failures, lastFailureAt: r.before.lastFailureAt } });
      return;
    }
    if ((await failures.deleteOne({ _id: r.key.id, _v: r.version })) === 1) return;
  } catch (err) {
    if (!isLostRace(err)) throw err;
  }
  await failures.updateOne({ _id: r.key.id, failures: { $gt: 0 } }, { $inc: { failures: -1 } });
};

/**
 * Reserves an attempt against every key, before the password is checked; refuses with `rate_limited`
 * (and `retryAfter` in seconds) while any of them is locked, giving back what it had reserved.
 */
export const reserveAttempt = async (deps: AccountDeps, keys: ThrottleKey[]): Promise<Reservation[]> => {
  const taken: Reservation[] = [];
  try {
    for (const key of keys) taken.push(await reserveOne(deps, key));
  } catch (err) {
    await Promise.all(taken.map((r) => release(deps, r)));
    throw err;
  }
  return taken;
};

/** After a failed attempt (already counted): drops forgotten counts, which is what sprayed addresses and emails leave behind. */
export const forgetStale = async (deps: AccountDeps): Promise<void> => {
  const now = deps.clock.now();
  await deps.collections.signInFailures.deleteMany({ lastFailureAt: { $lte: new Date(now.getTime() - FORGET_AFTER_MS) } });
};

/**
 * After a successful attempt: its account's failures are cleared; an address only gets its attempt back
 * (never cleared, or one valid account would let an address try passwords on every other one).
 */
export const settleSuccess = async (deps: AccountDeps, reservations: Reservation[]): Promise<void> => {
  await Promise.all(
    reservations.map((r) =>
      r.key.policy === ACCOUNT_POLICY ? deps.collections.signInFailures.deleteOne({ _id: r.key.id }) : release(deps, r),
    ),
  );
};
