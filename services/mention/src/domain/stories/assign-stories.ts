import type { Write } from "@earshot/platform/core";
import { type MentionDoc, STORY_KEYS, type StoryKeyDoc } from "../../store";
import type { MentionDeps } from "../deps";
import { SIMILARITY_THRESHOLD, similarityOf, type StorySignals, storySignalsOf } from "./story-signals";

// Stories are assigned at ingest, before the mentions are committed: a batch costs one read of the story
// index (every key of every post at once) and, when some posts join stories stored before, one count of
// those stories; the keys a post claims are written in the same commit as the post. A post joins the story
// of the first of its keys already claimed within the window (a link first, then a band of its text
// signature whose claimant's signature is similar enough); otherwise it starts a story of its own. Keys
// are scoped by project, so stories never cross projects. The index holds each key once (its first
// claimant), so the cost per post is bounded by its number of keys (its links and 4 bands) whatever the
// project's volume; a post claims only the keys nobody claimed within the window, so a copy joining a
// story usually writes nothing. A band claimed by an unrelated post is lost for that band only.

/** A story holds the mentions published within this long of its first one. */
export const STORY_WINDOW_MS = 72 * 3_600_000;

export const storyIdOf = (firstMentionId: string) => `sto_${firstMentionId.slice(firstMentionId.indexOf("_") + 1)}`;
export const firstMentionIdOf = (storyId: string) => `men_${storyId.slice(storyId.indexOf("_") + 1)}`;

// The key writes and story sizes of the mentions being ingested, by mention: kept beside the documents so
// that the commit (which may retry mention by mention) takes each mention's keys with it.
const keyWrites = new WeakMap<MentionDoc, Write[]>();
const sizesAtIngest = new WeakMap<MentionDoc, number>();

/** The story keys a mention claims, to be committed with it. */
export const storyKeyWritesOf = (m: MentionDoc): Write[] => keyWrites.get(m) ?? [];

/** The size of a mention's story: counted by the read that presents it, or as its ingest found it, or 1. */
export const storySizeOf = (m: Pick<MentionDoc, "storySize">): number => m.storySize ?? sizesAtIngest.get(m as MentionDoc) ?? 1;

const keyIdOf = (projectId: string, key: string) => `${projectId}|${key}`;

interface Claim {
  storyId: string;
  signature?: string;
  at: Date;
}

const joins = (claim: Claim | undefined, at: Date, signature: string | undefined, band: boolean): claim is Claim => {
  if (!claim || Math.abs(claim.at.getTime() - at.getTime()) > STORY_WINDOW_MS) return false;
  if (!band) return true;
  return claim.signature !== undefined && signature !== undefined && similarityOf(claim.signature, signature) >= SIMILARITY_THRESHOLD;
};

/**
 * Sets `storyId` (and `storyLead` on a story's first mention) on each mention about to be stored, earliest
 * published first, and prepares the story keys each claims (storyKeyWritesOf).
 */
export const assignStories = async (deps: MentionDeps, mentions: readonly MentionDoc[]): Promise<void> => {
  if (mentions.length === 0) return;
  const signals = new Map<MentionDoc, StorySignals>(mentions.map((m) => [m, storySignalsOf(m.title, m.text)]));
  const ids = new Set<string>();
  for (const [m, s] of signals) for (const key of [...s.links, ...s.textKeys]) ids.add(keyIdOf(m.projectId, key));
  const stored = await deps.collections.storyKeys.find({ _id: { $in: [...ids] } });
  const claims = new Map<string, Claim>(stored.map((k) => [k._id, { storyId: k.storyId, signature: k.signature, at: k.at }]));
  const joinedStored = new Set<string>();
  const batchSizes = new Map<string, number>();
  const now = deps.clock.now();
  const ordered = [...mentions].sort((a, b) => a.publishedAt.getTime() - b.publishedAt.getTime() || (a._id < b._id ? -1 : 1));
  for (const m of ordered) {
    const s = signals.get(m)!;
    const keys = [...s.links.map((k) => ({ k, band: false })), ...s.textKeys.map((k) => ({ k, band: k.startsWith("b") }))];
    let match: Claim | undefined;
    for (const { k, band } of keys) {
      const claim = claims.get(keyIdOf(m.projectId, k));
      if (joins(claim, m.publishedAt, s.signature, band)) {
        match = claim;
        break;
      }
    }
    const storyId = match?.storyId ?? storyIdOf(m._id);
    m.storyId = storyId;
    if (match) {
      if (!batchSizes.has(storyId) && stored.some((k) => k.storyId === storyId)) joinedStored.add(storyId);
    }
    // Both ways, so a collapsed read can keep mentions stored before stories (neither) with the first ones.
    m.storyLead = !match;
    batchSizes.set(storyId, (batchSizes.get(storyId) ?? 0) + 1);
    sizesAtIngest.set(m, batchSizes.get(storyId)!);
    // A key unclaimed (or claimed longer ago than the window) is the mention's to claim; one claimed within it stays its story's.
    const writes: Write[] = [];
    for (const { k } of keys) {
      const id = keyIdOf(m.projectId, k);
      const held = claims.get(id);
      if (held && Math.abs(held.at.getTime() - m.publishedAt.getTime()) <= STORY_WINDOW_MS) continue;
      const claim: Claim = { storyId, signature: k.startsWith("b") ? s.signature : undefined, at: m.publishedAt };
      claims.set(id, claim);
      const expiresAt = new Date(Math.max(now.getTime(), m.publishedAt.getTime()) + STORY_WINDOW_MS);
      const doc: StoryKeyDoc = { _id: id, projectId: m.projectId, storyId, signature: claim.signature, at: m.publishedAt, expiresAt };
      // Replaced, not inserted: another replica claiming the same key at the same moment must not fail the mention's commit.
      writes.push({ kind: "replace", collection: STORY_KEYS, doc });
    }
    keyWrites.set(m, writes);
  }
  if (joinedStored.size === 0) return;
  // Mentions joining stories stored before: their events carry the story's size with them counted in.
  const rows = await deps.collections.mentions.countBy({ projectId: { $in: [...new Set(mentions.map((m) => m.projectId))] }, storyId: { $in: [...joinedStored] } }, { by: "storyId" });
  const before = new Map(rows.map((r) => [String(r.key), r.count]));
  for (const m of mentions) if (m.storyId && before.has(m.storyId)) sizesAtIngest.set(m, (sizesAtIngest.get(m) ?? 1) + before.get(m.storyId)!);
};
