import { conflict, DomainError, isVersionConflict, type Source, type Write } from "@earshot/platform/core";
import { randomUUID } from "node:crypto";
import type { CollectedPost, CollectKeyword, LinkedinAccess, PollOutcome } from "../collectors/collector";
import { ProviderRateLimited, QuotaExhausted } from "../collectors/provider-errors";
import { postCollectedEvent } from "../events";
import { needsReauthorization, requireLinkedinReauthorization, usableLinkedinToken } from "./linkedin-token-lifecycle";
import { type FirstSearchDoc, POLL_RECORDS, POLLERS, type PollerDoc, pollerId, type PollRecordDoc } from "../store";
import type { IntegrationDeps } from "./deps";
import { reportFailingFeeds } from "./feeds";
import { deferFirstSearches, firstSearchLookbackMs, settleFirstSearches } from "./first-search";
import { readPollerFacts } from "./pollers";

// One poll of one claimed poller. The poller's lease is held at a known version; everything the poll
// produces (the new cursor and recent ids, the health figures, a poll record and one post.collected
// event per new post) is committed in ONE unit of work that replaces the poller at that version. So a
// lease lost to another replica, or a poller disabled meanwhile (pause, archive, source removed), makes
// the commit fail and nothing is emitted; the cursor did not move, so nothing is lost either.
// A keyword's first search (first-search.ts) runs the same way under the lease, for its keywords alone,
// from no cursor and looking back the first-search window; its commit keeps the poller's cursor and next
// regular poll (later only when the provider says to back off) and records when it ran.

/**
 * The collector's answer, or the abort's reason as soon as the signal fires (or at once when it already
 * has): a poll stops on a pause or a timeout even when a collector is slow to notice its signal.
 */
const untilAborted = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> => {
  const reasonOf = () => (signal.reason instanceof Error ? signal.reason : new Error("poll aborted"));
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(reasonOf());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reasonOf());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
};

/** Source ids remembered per poller: a post found again within this many is not emitted twice. */
export const RECENT_IDS_KEPT = 5_000;

/** A lease lasts longer than a poll may take (the scheduler aborts a poll well before it ends). */
export const LEASE_MS = 10 * 60 * 1000;

const DAY_MS = 24 * 3600 * 1000;
const LAGS_KEPT = 500;

export const intervalMs = (deps: IntegrationDeps): number => deps.settings.EARSHOT_POLL_INTERVAL_SECONDS * 1000;

/** Why the scheduler aborts a poll that ran too long: recorded as the source's last error, unlike a pause. */
export class PollTimedOut extends Error {
  constructor(ms: number) {
    super(`the poll took longer than ${Math.round(ms / 1000)} s and was abandoned`);
    this.name = "PollTimedOut";
  }
}

export interface PollResult {
  /** Posts emitted (0 when the poll was discarded or failed). */
  postsFound: number;
  /** Whether the poll's findings were committed. */
  committed: boolean;
  error?: unknown;
}

/** Takes the poller's lease for this replica; null when another writer changed it first. */
export const claimPoller = async (deps: IntegrationDeps, poller: PollerDoc): Promise<PollerDoc | null> => {
  const now = deps.clock.now();
  try {
    return await deps.collections.pollers.updateVersioned(poller._id, poller._v ?? 1, {
      $set: { leaseOwner: deps.replicaId, leaseUntil: new Date(now.getTime() + LEASE_MS) },
    });
  } catch (err) {
    if (isVersionConflict(err)) return null;
    throw err;
  }
};

export const leaseIsLive = (poller: PollerDoc, now: Date): boolean => Boolean(poller.leaseOwner && poller.leaseUntil && poller.leaseUntil > now);

/** Gives the lease back without changing anything else; a lease already lost stays lost. */
const release = async (deps: IntegrationDeps, claimed: PollerDoc, fields: Partial<PollerDoc> = {}): Promise<void> => {
  try {
    await deps.collections.pollers.updateVersioned(claimed._id, claimed._v ?? 1, { $set: { ...fields, leaseOwner: undefined, leaseUntil: undefined, updatedAt: deps.clock.now() } });
  } catch (err) {
    if (!isVersionConflict(err)) throw err;
  }
};

const keywordsFor = (keywords: Awaited<ReturnType<typeof readPollerFacts>>["keywords"], source: Source): CollectKeyword[] =>
  keywords
    .filter((k) => k.active && k.sources.includes(source))
    .map((k) => ({
      id: k._id,
      value: k.value,
      aliases: k.aliases,
      excludedTerms: k.excludedTerms,
      caseSensitive: k.caseSensitive,
      sources: k.sources,
      filters: k.filters,
    }));

const stillCollecting = async (deps: IntegrationDeps, claimed: PollerDoc): Promise<boolean> => {
  const [project, poller] = await Promise.all([deps.collections.projects.findById(claimed.projectId), deps.collections.pollers.findById(claimed._id)]);
  return project?.status === "active" && poller?.enabled === true && poller._v === claimed._v;
};

const newPosts = (posts: CollectedPost[], recentIds: string[]): CollectedPost[] => {
  const seen = new Set(recentIds);
  const out: CollectedPost[] = [];
  for (const post of posts) {
    if (seen.has(post.sourceId)) continue;
    seen.add(post.sourceId);
    out.push(post);
  }
  return out;
};


const laterOf = (a: Date, b: Date | undefined): Date => (b && b > a ? b : a);

/**
 * What a poll (or a live stream's delivery) found, committed as one unit: the poller replaced at the version
 * it was read at, a poll record for the day's figures, and one post.collected per post.
 */
export const commitFound = async (deps: IntegrationDeps, read: PollerDoc, next: PollerDoc, posts: CollectedPost[], at: Date, lagsMs: number[]): Promise<void> => {
  const record: PollRecordDoc = {
    _id: `${read._id}:${at.getTime()}:${randomUUID().slice(0, 8)}`,
    pollerId: read._id,
    projectId: read.projectId,
    source: read.source,
    at,
    found: posts.length,
    lagsMs,
    expiresAt: new Date(at.getTime() + DAY_MS),
  };
  const writes: Write[] = [
    { kind: "replace", collection: POLLERS, doc: next, expectedVersion: read._v ?? 1 },
    { kind: "insert", collection: POLL_RECORDS, doc: record },
  ];
  await deps.outbox.commit(
    writes,
    posts.map((p) => postCollectedEvent(read.projectId, p, at)),
  );
};

export const lagsOf = (posts: CollectedPost[], collectedAt: Date): number[] =>
  posts
    .map((p) => collectedAt.getTime() - new Date(p.publishedAt).getTime())
    .filter((lag) => Number.isFinite(lag))
    .map((lag) => Math.max(0, lag))
    .slice(0, LAGS_KEPT);

const commitOutcome = async (deps: IntegrationDeps, claimed: PollerDoc, outcome: PollOutcome, firstSearch: boolean): Promise<number> => {
  const collectedAt = deps.clock.now();
  const posts = newPosts(outcome.posts, claimed.recentIds);
  const backoffUntil = outcome.backoffUntil && outcome.backoffUntil > collectedAt ? outcome.backoffUntil : undefined;
  // A first search leaves the regular schedule and its cursor alone, unless the provider says to wait.
  const schedule: Pick<PollerDoc, "cursor" | "nextPollAt" | "firstSearchAt"> = firstSearch
    ? { cursor: claimed.cursor, nextPollAt: laterOf(claimed.nextPollAt, backoffUntil), firstSearchAt: collectedAt }
    : { cursor: outcome.cursor, nextPollAt: backoffUntil ?? new Date(collectedAt.getTime() + intervalMs(deps)), firstSearchAt: claimed.firstSearchAt };
  const poller: PollerDoc = {
    ...claimed,
    ...schedule,
    recentIds: [...claimed.recentIds, ...posts.map((p) => p.sourceId)].slice(-RECENT_IDS_KEPT),
    lastSuccessAt: collectedAt,
    quotaLeft: outcome.quotaLeft !== undefined && Number.isFinite(outcome.quotaLeft) ? outcome.quotaLeft : undefined,
    backoffUntil,
    leaseOwner: undefined,
    leaseUntil: undefined,
    updatedAt: collectedAt,
  };
  // A first search finds posts up to its window old: their age says nothing of how late they were noticed.
  await commitFound(deps, claimed, poller, posts, collectedAt, firstSearch ? [] : lagsOf(posts, collectedAt));
  return posts.length;
};

const errorStatus = (err: unknown): number => {
  const status = (err as { status?: unknown }).status;
  return typeof status === "number" ? status : 0;
};

const recordFailure = async (deps: IntegrationDeps, claimed: PollerDoc, err: unknown, firstSearch?: readonly FirstSearchDoc[]): Promise<void> => {
  const at = deps.clock.now();
  const message = err instanceof Error ? err.message : String(err);
  const lastError = { at, message, status: err instanceof QuotaExhausted ? 0 : errorStatus(err) };
  const reset = err instanceof ProviderRateLimited ? err.retryAt : err instanceof QuotaExhausted ? err.resetAt : undefined;
  if (reset && reset > at) {
    // The provider's word holds for every call to it: the regular poll waits too, and so does the first search.
    const nextPollAt = firstSearch ? laterOf(claimed.nextPollAt, reset) : reset;
    await release(deps, claimed, { lastError, backoffUntil: reset, nextPollAt, ...(err instanceof QuotaExhausted ? { quotaLeft: 0 } : {}) });
    if (firstSearch) await deferFirstSearches(deps, firstSearch, reset);
  } else if (firstSearch) {
    // Tried again an interval later, as a failed poll is; the regular poll keeps its time.
    await release(deps, claimed, { lastError });
    await deferFirstSearches(deps, firstSearch, new Date(at.getTime() + intervalMs(deps)));
  } else {
    await release(deps, claimed, { lastError, nextPollAt: new Date(at.getTime() + intervalMs(deps)) });
  }
  deps.logger.warn({ err, projectId: claimed.projectId, source: claimed.source, firstSearch: firstSearch !== undefined }, firstSearch ? "first search failed" : "poll failed");
};

/** The member's token (refreshed first when it is about to expire) and the selected Page. */
const linkedinAccessOf = async (deps: IntegrationDeps, facts: Awaited<ReturnType<typeof readPollerFacts>>, signal: AbortSignal): Promise<LinkedinAccess | undefined> => {
  const conn = facts.linkedin;
  if (conn?.status !== "connected" || !conn.page) return undefined;
  return { accessToken: await usableLinkedinToken(deps, conn, signal), organizationUrn: conn.page.organizationUrn };
};

export interface RunPollOptions {
  /** Throw a provider's failure (after recording it) instead of answering it. */
  rethrow?: boolean;
  /** Run these first searches instead of the regular poll: their keywords alone, from no cursor. */
  firstSearch?: readonly FirstSearchDoc[];
}

/**
 * Runs one poll of a poller this replica has claimed (`claimed` is the poller as the claim left it).
 * Never throws for a provider's failure unless `rethrow`: the failure is recorded on the poller.
 */
export const runPoll = async (deps: IntegrationDeps, claimed: PollerDoc, signal: AbortSignal, options: RunPollOptions = {}): Promise<PollResult> => {
  const discarded: PollResult = { postsFound: 0, committed: false };
  const { firstSearch } = options;
  try {
    const facts = await readPollerFacts(deps, claimed.projectId);
    const asked = firstSearch && new Set(firstSearch.map((r) => r.keywordId));
    const keywords = keywordsFor(facts.keywords, claimed.source).filter((k) => !asked || asked.has(k.id));
    if (facts.project?.status !== "active" || !claimed.enabled || keywords.length === 0) {
      await release(deps, claimed);
      // Keywords deactivated or taken off this source since they asked: nothing left to search for them.
      if (firstSearch && facts.project?.status === "active" && claimed.enabled) await settleFirstSearches(deps, firstSearch);
      return discarded;
    }
    const linkedin = claimed.source === "linkedin" ? await linkedinAccessOf(deps, facts, signal) : undefined;
    if (claimed.source === "linkedin" && !linkedin) {
      await release(deps, claimed);
      return discarded;
    }
    const input = { projectId: claimed.projectId, keywords, now: deps.clock.now(), signal, linkedin };
    const poll = firstSearch ? { ...input, cursor: undefined, lookbackMs: firstSearchLookbackMs(deps) } : { ...input, cursor: claimed.cursor };
    const outcome = await untilAborted(deps.collectors[claimed.source].poll(poll), signal);
    // Re-read right before committing: a pause or a removed source since the poll began emits nothing.
    if (signal.aborted || !(await stillCollecting(deps, claimed))) {
      await release(deps, claimed);
      return discarded;
    }
    const postsFound = await commitOutcome(deps, claimed, outcome, firstSearch !== undefined);
    if (firstSearch) await settleFirstSearches(deps, firstSearch);
    // A feed's failures do not fail the poll (rss.ts writes them on the feed): a long run is told to the owner.
    if (claimed.source === "rss") await reportFailingFeeds(deps, claimed.projectId);
    return { postsFound, committed: true };
  } catch (err) {
    // The poller changed under the poll (disabled, lease taken over): its new state stands as it is.
    if (isVersionConflict(err)) return discarded;
    if (signal.aborted && !(signal.reason instanceof PollTimedOut)) {
      await release(deps, claimed);
      return discarded;
    }
    await recordFailure(deps, claimed, err, firstSearch);
    // LinkedIn no longer accepts the member's authorization: every later poll would fail alike.
    if (claimed.source === "linkedin" && needsReauthorization(err)) await requireLinkedinReauthorization(deps, claimed.projectId);
    if (options.rethrow) throw err;
    return { ...discarded, error: err };
  }
};

/**
 * One poll of a (project, source) now, due or not (LinkedIn's metered sync). Refused (conflict) while
 * another poll of it holds a live lease, or when the source is not collected for the project. A
 * provider's failure is recorded on the poller and then thrown, so the caller can answer it.
 */
export const pollNow = async (deps: IntegrationDeps, projectId: string, source: Source, signal?: AbortSignal): Promise<{ postsFound: number }> => {
  const poller = await deps.collections.pollers.findById(pollerId(projectId, source));
  if (!poller?.enabled) throw new DomainError("conflict", `${source} is not collected for this project (source disabled, no active keyword on it, or not connected).`);
  if (leaseIsLive(poller, deps.clock.now())) throw conflict("a poll of this source is running");
  const claimed = await claimPoller(deps, poller);
  if (!claimed) throw conflict("a poll of this source is running");
  const result = await runPoll(deps, claimed, signal ?? new AbortController().signal, { rethrow: true });
  return { postsFound: result.postsFound };
};
