import { DomainError, isUniqueViolation, isVersionConflict, rateLimited } from "@earshot/platform/core";
import type { SignInFailureDoc } from "../store";
import type { AccountDeps } from "./deps";

// Brute-force protection for password sign-in, without handing anyone a way to lock an owner out.
// Failures are counted under three keys, in the service's store so every replica agrees, and by email
// whether or not it has an account (the state, and so the answers, are the same for both):
// - one email from one client address (`pair`): a few free failures, then each further guess has to wait
//   twice as long as the one before (1 s, 2 s, 4 s … up to 15 min); a guess inside the wait is refused
//   without checking the password. This is what stops a guesser, and only the guesser;
// - one client address across emails (`address`): the same, with more free failures (offices share an
//   address), so spraying one password over many emails is stopped too;
// - one email from every address (`email`), the ceiling against guessing from many addresses: it never
//   refuses (anyone could then keep the owner out), it holds every attempt on the email for a while before
//   the password is checked, longer as failures pile up.
// An attempt is counted BEFORE the slow password check and given back on success, so concurrent attempts
// cannot all slip in while the first ones are still being checked: only attempts that every refusing key
// admits reach the password hash, whatever the flood.

export interface ThrottlePolicy {
  /** Failures allowed before the first wait. */
  freeFailures: number;
  firstWaitMs: number;
  maxWaitMs: number;
  /** What an attempt inside the wait gets: refused until it passes, or held for the wait and then checked. */
  tooSoon: "refuse" | "hold";
  /** A success clears the count; otherwise it only gives its own attempt back. */
  clearedBySuccess: boolean;
}

/** A key with no failure for this long starts again from zero (longer than the longest wait). */
export const FORGET_AFTER_MS = 3600_000;

// The guesser: once the right password got in from this address, its earlier failures were the owner's typos.
export const PAIR_POLICY: ThrottlePolicy = { freeFailures: 5, firstWaitMs: 1000, maxWaitMs: 15 * 60_000, tooSoon: "refuse", clearedBySuccess: true };
// A success does not clear an address, or one valid account would let it try passwords on every other one.
export const ADDRESS_POLICY: ThrottlePolicy = { freeFailures: 20, firstWaitMs: 1000, maxWaitMs: 15 * 60_000, tooSoon: "refuse", clearedBySuccess: false };
// The ceiling per email: at most 2 s, well inside the callers' 5 s deadline with the hash after it. A
// success does not clear it: the owner signing in does not stop an attack from elsewhere.
export const EMAIL_POLICY: ThrottlePolicy = { freeFailures: 10, firstWaitMs: 250, maxWaitMs: 2000, tooSoon: "hold", clearedBySuccess: false };

/** How long a key makes the next attempt wait after its `failures`-th failure in a row. */
export const waitMs = (failures: number, policy: ThrottlePolicy): number =>
  failures < policy.freeFailures ? 0 : Math.min(policy.firstWaitMs * 2 ** (failures - policy.freeFailures), policy.maxWaitMs);

export interface ThrottleKey {
  id: string;
  policy: ThrottlePolicy;
}

// An address never contains "/" (an IP address or an IPv6 /64 has it only at its end), so the pair's id is unambiguous.
export const pairKey = (normalizedEmail: string, address: string): ThrottleKey => ({ id: `pair:${address}/${normalizedEmail}`, policy: PAIR_POLICY });
export const addressKey = (address: string): ThrottleKey => ({ id: `address:${address}`, policy: ADDRESS_POLICY });
export const emailKey = (normalizedEmail: string): ThrottleKey => ({ id: `email:${normalizedEmail}`, policy: EMAIL_POLICY });

const isForgotten = (doc: SignInFailureDoc, now: number): boolean => doc.lastFailureAt.getTime() + FORGET_AFTER_MS <= now;

/**
 * Milliseconds this attempt has to wait: for a refusing key, what is left of the wait since its last
 * failure; for a holding key, the whole wait of its count, every time (a tarpit, not a queue).
 */
const pendingWaitMs = (doc: SignInFailureDoc | null, policy: ThrottlePolicy, now: number): number => {
  if (!doc || isForgotten(doc, now)) return 0;
  const wait = waitMs(doc.failures, policy);
  return policy.tooSoon === "hold" ? wait : Math.max(0, doc.lastFailureAt.getTime() + wait - now);
};

const refuse = (waitMs: number) => {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return rateLimited(seconds, `Too many sign-in attempts. Try again in ${seconds} second${seconds === 1 ? "" : "s"}.`);
};

/** A key's attempt taken before the password is checked: the stored state before it and the version it wrote. */
export interface Reservation {
  key: ThrottleKey;
  before: SignInFailureDoc | null;
  version: number;
  /** How long a holding key holds this attempt (0 for refusing keys, which refuse instead). */
  holdMs: number;
}

// Concurrent attempts race here; each round of the loop either reserves, refuses or sees someone else's
// write, so a few rounds per concurrent attempt are enough.
const MAX_ROUNDS = 1000;

const isLostRace = (err: unknown): boolean =>
  isVersionConflict(err) || isUniqueViolation(err) || (err instanceof DomainError && err.code === "not_found");

/**
 * Takes one attempt against the key, counted as a failure until it succeeds; a refusing key refuses with
 * `rate_limited` inside its wait. A compare-and-set on the stored version, so of many concurrent
 * attempts only as many get through as the schedule allows.
 */
const reserveOne = async (deps: AccountDeps, key: ThrottleKey): Promise<Reservation> => {
  const failures = deps.collections.signInFailures;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const now = deps.clock.now();
    const doc = await failures.findById(key.id);
    const wait = pendingWaitMs(doc, key.policy, now.getTime());
    if (wait > 0 && key.policy.tooSoon === "refuse") throw refuse(wait);
    try {
      if (!doc) {
        const stored = await failures.insertOne({ _id: key.id, failures: 1, lastFailureAt: now });
        return { key, before: null, version: stored._v ?? 1, holdMs: wait };
      }
      const count = isForgotten(doc, now.getTime()) ? 1 : doc.failures + 1;
      const stored = await failures.updateVersioned(key.id, doc._v ?? 1, { $set: { failures: count, lastFailureAt: now } });
      return { key, before: doc, version: stored._v ?? 1, holdMs: wait };
    } catch (err) {
      if (!isLostRace(err)) throw err;
    }
  }
  // Only under a contention no schedule was made for (every round lost): answered as an overload, briefly.
  throw refuse(key.policy.firstWaitMs);
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

export interface ReservedAttempt {
  reservations: Reservation[];
  /** How long to hold the attempt before its password is checked (the longest hold of its keys). */
  holdMs: number;
}

/**
 * Reserves an attempt against every key, before the password is checked; refuses with `rate_limited`
 * (and `retryAfter` in seconds) while any refusing key is inside its wait, giving back what it had
 * reserved. Refusing keys come first, so a refused attempt never counts against a holding key.
 */
export const reserveAttempt = async (deps: AccountDeps, keys: ThrottleKey[]): Promise<ReservedAttempt> => {
  const ordered = [...keys.filter((k) => k.policy.tooSoon === "refuse"), ...keys.filter((k) => k.policy.tooSoon === "hold")];
  const taken: Reservation[] = [];
  try {
    for (const key of ordered) taken.push(await reserveOne(deps, key));
  } catch (err) {
    await Promise.all(taken.map((r) => release(deps, r)));
    throw err;
  }
  return { reservations: taken, holdMs: Math.max(0, ...taken.map((r) => r.holdMs)) };
};

/** After a failed attempt (already counted): drops forgotten counts, which is what sprayed addresses and emails leave behind. */
export const forgetStale = async (deps: AccountDeps): Promise<void> => {
  const now = deps.clock.now();
  await deps.collections.signInFailures.deleteMany({ lastFailureAt: { $lte: new Date(now.getTime() - FORGET_AFTER_MS) } });
};

/** After a successful attempt: the keys its policy clears are cleared, the others get the attempt back. */
export const settleSuccess = async (deps: AccountDeps, reservations: Reservation[]): Promise<void> => {
  await Promise.all(
    reservations.map((r) => (r.key.policy.clearedBySuccess ? deps.collections.signInFailures.deleteOne({ _id: r.key.id }) : release(deps, r))),
  );
};
