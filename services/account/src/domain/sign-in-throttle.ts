import { rateLimited } from "@earshot/platform/core";
import type { SignInFailureDoc } from "../store";
import type { AccountDeps } from "./deps";

// Brute-force protection for password sign-in. Failures are counted per account (its email, known or
// not, so the lock-out does not tell which addresses have accounts) and per client address, in the
// service's store so every replica agrees. After a few free failures each further one locks the key for
// twice as long as the one before (1 s, 2 s, 4 s … up to 15 min); while locked, attempts are refused
// without checking the password, so even the right one does not get in.

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

/** Refuses with `rate_limited` (and `retryAfter` in seconds) while any of the keys is locked. */
export const assertNotLocked = async (deps: AccountDeps, keys: ThrottleKey[]): Promise<void> => {
  const now = deps.clock.now().getTime();
  const docs = await Promise.all(keys.map((k) => deps.collections.signInFailures.findById(k.id)));
  const waitMs = Math.max(0, ...keys.map((k, i) => lockedForMs(docs[i] ?? null, k.policy, now)));
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw rateLimited(seconds, `Too many sign-in attempts. Try again in ${seconds} second${seconds === 1 ? "" : "s"}.`);
  }
};

/** Counts one failure against each key; an atomic increment, so concurrent failures all count. */
export const recordFailure = async (deps: AccountDeps, keys: ThrottleKey[]): Promise<void> => {
  const now = deps.clock.now();
  // Forgotten counts go first (so a stale key starts over), and with them whatever sprayed addresses
  // and emails left behind: the collection holds only the last hour's failures.
  await deps.collections.signInFailures.deleteMany({ lastFailureAt: { $lte: new Date(now.getTime() - FORGET_AFTER_MS) } });
  await Promise.all(
    keys.map((k) => deps.collections.signInFailures.updateOne({ _id: k.id }, { $inc: { failures: 1 }, $set: { lastFailureAt: now } }, { upsert: true })),
  );
};

/** A successful sign-in clears its account's failures (never an address's). */
export const clearFailures = async (deps: AccountDeps, key: ThrottleKey): Promise<void> => {
  await deps.collections.signInFailures.deleteOne({ _id: key.id });
};
