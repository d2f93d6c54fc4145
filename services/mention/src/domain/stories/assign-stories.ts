import { DomainError } from "@earshot/platform/core";
import type { MentionDoc } from "../../store";
import type { FirstSeqs } from "../change-sequence";
import type { MentionDeps } from "../deps";
import { byPublication, type Claim, place, type StoryIndex } from "./story-index";
import { type StorySignals, storySignalsOf } from "./story-signals";

// Stories are assigned at ingest: each new mention is placed against its project's story index in this
// process's memory (story-index.ts), earliest published first, and committed in that order. The index
// is a replay of the project's mentions up to a number of its change sequence; the commit takes the
// sequence's next numbers only if the sequence is still at that number (checked in the same versioned
// write that numbers the mentions), so every mention is placed against exactly the mentions committed
// before it, whichever replica committed them. When the sequence moved on (another replica's commit, or a
// triage change), the index reads what was created since and the batch is placed again. Nothing is
// written for the index: a story costs the mention's `storyId` and `storyLead`, and no read in the
// common case (one replica ingesting a project, or replicas taking turns on it).

export { STORY_WINDOW_MS, storyIdOf } from "./story-index";

export const firstMentionIdOf = (storyId: string) => `men_${storyId.slice(storyId.indexOf("_") + 1)}`;

const sizesAtIngest = new WeakMap<MentionDoc, number>();

/** The size of a mention's story: counted by the read that presents it, or as its ingest found it, or 1. */
export const storySizeOf = (m: Pick<MentionDoc, "storySize">): number => m.storySize ?? sizesAtIngest.get(m as MentionDoc) ?? 1;

export interface BatchPlacement {
  /** The stories the batch joined that were stored before it (their sizes are counted). */
  joinedBefore: Set<string>;
  /** Per project, the keys the batch claims, for the index once the batch is committed. */
  claims: Map<string, Map<string, Claim>>;
}

/**
 * Sets `storyId` and `storyLead` (true on a story's first mention, false on the others, so a collapsed read
 * can keep mentions stored before stories, which have neither, with the first ones) on each mention,
 * earliest published first, against the indexes (which it does not change). Sorts `mentions` in place;
 * `signals` keeps each mention's signals for placing the batch again.
 */
export const placeBatch = (indexOf: (projectId: string) => StoryIndex, mentions: MentionDoc[], signals = new Map<MentionDoc, StorySignals>()): BatchPlacement => {
  mentions.sort(byPublication);
  const signalsOf = (m: MentionDoc): StorySignals => {
    let s = signals.get(m);
    if (!s) signals.set(m, (s = storySignalsOf(m.title, m.text)));
    return s;
  };
  const claims = new Map<string, Map<string, Claim>>();
  const started = new Set<string>();
  const joinedBefore = new Set<string>();
  const batchSizes = new Map<string, number>();
  for (const m of mentions) {
    const index = indexOf(m.projectId);
    let ours = claims.get(m.projectId);
    if (!ours) claims.set(m.projectId, (ours = new Map()));
    const mine = ours;
    const placed = place(m, signalsOf(m), (key) => mine.get(key) ?? index.get(key));
    m.storyId = placed.storyId;
    m.storyLead = !placed.joined;
    if (!placed.joined) started.add(placed.storyId);
    else if (!started.has(placed.storyId)) joinedBefore.add(placed.storyId);
    for (const [key, claim] of placed.claims) mine.set(key, claim);
    batchSizes.set(placed.storyId, (batchSizes.get(placed.storyId) ?? 0) + 1);
    sizesAtIngest.set(m, batchSizes.get(placed.storyId)!);
  }
  return { joinedBefore, claims };
};

/** A commit found a project's change sequence past the index its mentions were placed against. */
export class StaleStoryIndex extends Error {
  constructor(readonly heads: ReadonlyMap<string, number>) {
    super("The story index is behind the change sequence.");
  }
}

/** Tries for one batch: a try is lost only to a commit of the same project that landed meanwhile. */
const ATTEMPTS = 32;

/**
 * Places the mentions in their stories and stores them with `commit`, which must call `check` with the
 * first numbers of its change-sequence commit (in its build, before writing) and number the mentions in
 * the order given (they are sorted, earliest published first). Returns what `commit` returns.
 */
export const storeWithStories = async <R>(deps: MentionDeps, mentions: MentionDoc[], commit: (check: (first: FirstSeqs) => void) => Promise<R>): Promise<R> => {
  const projectIds = [...new Set(mentions.map((m) => m.projectId))];
  const signals = new Map<MentionDoc, StorySignals>();
  for (let attempt = 1; ; attempt++) {
    const indexes = new Map<string, StoryIndex>();
    for (const projectId of projectIds) indexes.set(projectId, await deps.stories.indexFor(deps, projectId));
    const now = deps.clock.now().getTime();
    for (const index of indexes.values()) index.prune(now);
    const heads = new Map([...indexes].map(([p, index]) => [p, index.head]));
    const { joinedBefore, claims } = placeBatch((p) => indexes.get(p)!, mentions, signals);
    if (joinedBefore.size > 0) {
      // Mentions joining stories stored before: their events carry the story's size with them counted in.
      const rows = await deps.collections.mentions.countBy({ projectId: { $in: projectIds }, storyId: { $in: [...joinedBefore] } }, { by: "storyId" });
      const before = new Map(rows.map((r) => [String(r.key), r.count]));
      for (const m of mentions) if (before.has(m.storyId!)) sizesAtIngest.set(m, (sizesAtIngest.get(m) ?? 1) + before.get(m.storyId!)!);
    }
    const check = (first: FirstSeqs) => {
      const behind = new Map([...heads].filter(([p, head]) => first.get(p) !== undefined && first.get(p)! - 1 !== head).map(([p]) => [p, first.get(p)! - 1]));
      if (behind.size > 0) throw new StaleStoryIndex(behind);
    };
    let result: R;
    try {
      result = await commit(check);
    } catch (err) {
      if (!(err instanceof StaleStoryIndex)) throw err;
      if (attempt >= ATTEMPTS) throw new DomainError("conflict", "Too many changes of this project at once; try again.", { cause: err });
      await Promise.all([...err.heads].map(([projectId, head]) => deps.stories.catchUp(deps, projectId, head)));
      continue;
    }
    // Committed at the numbers following each head: the index takes the batch's claims, unless a catch-up
    // of the same project already read them back from the store.
    const counts = new Map<string, number>();
    for (const m of mentions) counts.set(m.projectId, (counts.get(m.projectId) ?? 0) + 1);
    for (const [projectId, index] of indexes) {
      if (index.head !== heads.get(projectId)) continue;
      for (const [key, claim] of claims.get(projectId) ?? []) index.set(key, claim);
      index.head += counts.get(projectId) ?? 0;
    }
    return result;
  }
};
