import type { MentionDoc } from "../../store";
import { SIMILARITY_THRESHOLD, similarityOf, type StorySignals, storySignalsOf } from "./story-signals";

// The story index of one project, in memory: which story holds each key (a normalized link, a band of a
// text signature) within the story window. It is nothing but a replay of the project's mentions in the
// order their commits numbered them (the change sequence), each placing itself by the keys held before
// it: the same mentions replayed in the same order give the same index, in any replica and after any
// restart, so the index needs no store of its own (writing one cost more than the rest of ingest's
// story work together: bench/README.md, Stories). `head` says how far the replay has gone.

/** A story holds the mentions published within this long of its first one. */
export const STORY_WINDOW_MS = 72 * 3_600_000;

export const storyIdOf = (firstMentionId: string) => `sto_${firstMentionId.slice(firstMentionId.indexOf("_") + 1)}`;

export interface Claim {
  storyId: string;
  /** The claimant's text signature, if it has enough text: a band is only a candidate until compared. */
  signature?: string;
  /** When the claimant was published (ms): a post joins only within the window of it. */
  at: number;
  /** The claim lapses then (ms): the window after the later of its ingest and its claimant's publication. */
  expiresAt: number;
}

/** Claims lapsed this long ago are dropped from memory; lookups still test each claim's own expiry. */
const PRUNE_SLACK_MS = 3_600_000;
const PRUNE_EVERY_MS = 10 * 60_000;

export class StoryIndex {
  private readonly claims = new Map<string, Claim>();
  private prunedAt = 0;

  /** Every mention of the project created up to this number of its change sequence is replayed in. */
  constructor(public head: number) {}

  get(key: string): Claim | undefined {
    return this.claims.get(key);
  }

  set(key: string, claim: Claim): void {
    this.claims.set(key, claim);
  }

  /** The keys held and their claims (lapsed ones included until pruned). */
  entries(): IterableIterator<[string, Claim]> {
    return this.claims.entries();
  }

  /** Drops the claims that lapsed, every few minutes: memory follows the window's volume, not the project's history. */
  prune(now: number): void {
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    for (const [key, claim] of this.claims) if (claim.expiresAt < now - PRUNE_SLACK_MS) this.claims.delete(key);
  }
}

/** What a mention needs to be placed: as ingest builds it, or as stored. */
export type Placeable = Pick<MentionDoc, "_id" | "publishedAt" | "matchedAt">;

export interface Placement {
  storyId: string;
  /** The claim it joined by; none when it starts a story. */
  joined?: Claim;
  /** The keys it claims (none held within the window of its publication), with their claims. */
  claims: Array<[string, Claim]>;
}

type Lookup = (key: string) => Claim | undefined;

/**
 * Where a mention goes, given the claims before it. It joins the story of the first of its keys held within
 * the window of its publication (a link first, then a band whose claimant's signature is similar enough),
 * else starts a story of its own (or, replaying a stored mention, keeps `storyId`); it claims the keys not
 * held within that window. Held means not lapsed when the mention was ingested (`matchedAt`), so a replay
 * decides as the ingest did, whenever it runs.
 */
export const place = (m: Placeable, s: StorySignals, lookup: Lookup, storyId?: string): Placement => {
  const decidedAt = m.matchedAt.getTime();
  const at = m.publishedAt.getTime();
  const held = (key: string) => {
    const claim = lookup(key);
    return claim && claim.expiresAt > decidedAt && Math.abs(claim.at - at) <= STORY_WINDOW_MS ? claim : undefined;
  };
  let joined: Claim | undefined;
  for (const key of s.links) if (!joined) joined = held(key);
  if (!joined && s.signature !== undefined) {
    for (const key of s.textKeys) {
      const claim = held(key);
      if (claim?.signature !== undefined && similarityOf(claim.signature, s.signature) >= SIMILARITY_THRESHOLD) {
        joined = claim;
        break;
      }
    }
  }
  const story = storyId ?? joined?.storyId ?? storyIdOf(m._id);
  // One claim for all the keys a mention claims (a link's join never reads the signature): the index
  // holds days of a busy project's keys, and their size is what the collector walks.
  const claim: Claim = { storyId: story, signature: s.signature, at, expiresAt: Math.max(decidedAt, at) + STORY_WINDOW_MS };
  const claims: Array<[string, Claim]> = [];
  for (const key of s.links) if (!held(key)) claims.push([key, claim]);
  for (const key of s.textKeys) if (!held(key)) claims.push([key, claim]);
  return { storyId: story, joined, claims };
};

/** Earliest published first, as ingest places a batch and numbers its commit. */
export const byPublication = (a: Placeable, b: Placeable): number => a.publishedAt.getTime() - b.publishedAt.getTime() || (a._id < b._id ? -1 : 1);

/** What a replay needs of a stored mention. */
export type Replayed = Pick<MentionDoc, "_id" | "publishedAt" | "matchedAt" | "storyId" | "createdSeq" | "title" | "text">;

/**
 * Replays stored mentions into the index, in the order their commits numbered them (`createdSeq`); those
 * without a story (stored before stories) claimed nothing.
 */
export const replay = (index: StoryIndex, mentions: readonly Replayed[]): void => {
  const ordered = mentions.filter((m) => m.storyId !== undefined && m.createdSeq !== undefined).sort((a, b) => a.createdSeq! - b.createdSeq!);
  for (const m of ordered) {
    const placed = place(m, storySignalsOf(m.title, m.text), (k) => index.get(k), m.storyId);
    for (const [key, claim] of placed.claims) index.set(key, claim);
  }
};
