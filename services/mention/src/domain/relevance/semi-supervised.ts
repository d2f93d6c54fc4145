import { hashFeature, type LearnedCounts } from "./model";

// What a project's unrated mentions teach: naive Bayes EM (self-training with soft labels). The model as
// rated scores the project's recent unrated mentions; each then adds its features to both sides in
// proportion to that score, at a small weight per mention, and the pass repeats a few times. Words that keep
// company with what the ratings (or the description) call relevant become evidence themselves, so a post
// phrased in words no one rated still moves when those words co-occur, in the project's own feed, with
// rated ones. Run where the 30-day rescore runs (the model changed), never at ingest; deterministic: the
// same mentions in the same order give the same counts.

/** Weight of one unrated mention against one rating: a few hundred unrated posts must not outvote 20 ratings. */
export const UNRATED_WEIGHT = 0.15;
/** EM passes: the soft labels settle within a few. */
const ROUNDS = 3;
/** A feature seen in fewer unrated mentions says nothing reliable. */
const MIN_MENTIONS = 2;
/** Features kept: the document stays bounded whatever the feed's size. */
export const MAX_UNRATED_FEATURES = 4000;
/** Mentions read: the newest, enough to learn the feed's vocabulary. */
export const MAX_UNRATED_MENTIONS = 3000;

/** The model's score of a mention's features given the soft counts so far (none in the first round). */
export type ScorerWith = (unrated: LearnedCounts | undefined) => (features: readonly string[]) => number;

const round = (n: number) => Math.round(n * 1000) / 1000;

/** The soft counts of `unrated` (each mention's features) under the model `scoreOf` computes. */
export const selfTrain = (unrated: ReadonlyArray<readonly string[]>, scorerWith: ScorerWith): LearnedCounts | undefined => {
  if (unrated.length === 0) return undefined;
  // Keywords are the same on every mention of a single-keyword project; sources and authors are left to
  // the ratings (a prolific author's unrated posts would otherwise decide for them).
  const lists = unrated.slice(0, MAX_UNRATED_MENTIONS).map((fs) => fs.filter((f) => !f.startsWith("keyword:") && !f.startsWith("author:") && !f.startsWith("source:")));
  const seen = new Map<string, number>();
  for (const fs of lists) for (const f of fs) seen.set(f, (seen.get(f) ?? 0) + 1);
  const kept = new Set(
    [...seen]
      .filter(([, n]) => n >= MIN_MENTIONS)
      .sort(([a, n], [b, m]) => m - n || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, MAX_UNRATED_FEATURES)
      .map(([f]) => f),
  );
  let soft: LearnedCounts | undefined;
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    const next: LearnedCounts = { relevant: 0, irrelevant: 0, counts: {} };
    const scoreOf = scorerWith(soft);
    for (const fs of lists) {
      const p = scoreOf(fs);
      next.relevant += UNRATED_WEIGHT * p;
      next.irrelevant += UNRATED_WEIGHT * (1 - p);
      for (const f of fs) {
        if (!kept.has(f)) continue;
        const key = hashFeature(f);
        const pair = (next.counts[key] ??= [0, 0]);
        pair[0] += UNRATED_WEIGHT * p;
        pair[1] += UNRATED_WEIGHT * (1 - p);
      }
    }
    soft = next;
  }
  const counts: Record<string, [number, number]> = {};
  for (const key of Object.keys(soft!.counts).sort()) {
    const [r, i] = soft!.counts[key]!;
    counts[key] = [round(r), round(i)];
  }
  return { relevant: round(soft!.relevant), irrelevant: round(soft!.irrelevant), counts };
};
