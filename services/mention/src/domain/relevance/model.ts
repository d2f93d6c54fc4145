import { FNV_OFFSET, fnvOn } from "../fnv";

// A project's learned relevance: Bernoulli naive Bayes over the features of the mentions its people rated,
// kept as counts (how many relevant and irrelevant rated mentions had each feature). Counts make learning
// exact and order-free: a rating adds its mention's features to one side, and a later rating of the same
// mention first takes the earlier one back (unlearn), so the model is always what the stored ratings say,
// without a batch fit. Naive Bayes suits the few dozen ratings a project gives; features are hashed so the
// document stays small and holds no text of the posts.

/** Changes when the features or the learner change, so every stored score is recomputed. */
export const MODEL_FAMILY = "nb1";

export interface LearnedCounts {
  /** Rated mentions on each side. */
  relevant: number;
  irrelevant: number;
  /** Per hashed feature: [relevant, irrelevant] rated mentions that had it. */
  counts: Record<string, [number, number]>;
}

export const emptyCounts = (): LearnedCounts => ({ relevant: 0, irrelevant: 0, counts: {} });

/** Additive smoothing of the counts: a feature seen once is evidence, not proof. */
const SMOOTHING = 1;
/** Naive Bayes adds up correlated evidence as if independent; this damps the sum so scores stay graded. */
const DAMPING = 0.5;

/** A feature name's hash as a number: what its key (hashFeature) writes in base 36. */
export const featureHash = (feature: string): number => fnvOn(FNV_OFFSET, feature) >>> 0;

/** FNV-1a, 32 bits, in base 36: a stable short key for a feature name. */
export const hashFeature = (feature: string): string => featureHash(feature).toString(36);

/** Features kept from the ratings: the document stays bounded however many ratings a project gives. */
export const MAX_RATED_FEATURES = 20_000;
/** Pruned to this share of the cap, so a project at the cap does not sort its counts at every rating. */
const PRUNED_TO = 0.9;

/**
 * The rarest features dropped down to PRUNED_TO of the cap (fewest rated mentions, ties by key: the same
 * counts prune the same way). A feature seen once in a thousand ratings moves no score; taking back a
 * rating whose feature was pruned leaves it at zero (counts never go below).
 */
const pruned = (counts: Record<string, [number, number]>): Record<string, [number, number]> => {
  const keys = Object.keys(counts);
  if (keys.length <= MAX_RATED_FEATURES) return counts;
  const kept = keys
    .map((k) => [k, counts[k]![0] + counts[k]![1]] as const)
    .sort(([a, n], [b, m]) => m - n || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, Math.floor(MAX_RATED_FEATURES * PRUNED_TO));
  return Object.fromEntries(kept.map(([k]) => [k, counts[k]!]));
};

/** The counts after adding (sign 1) or taking back (sign -1) one rated mention's features; a new object. */
export const learn = (model: LearnedCounts, features: readonly string[], relevant: boolean, sign: 1 | -1): LearnedCounts => {
  const counts = { ...model.counts };
  const side = relevant ? 0 : 1;
  for (const f of features) {
    const key = hashFeature(f);
    const pair: [number, number] = [...(counts[key] ?? [0, 0])] as [number, number];
    pair[side] = Math.max(0, pair[side] + sign);
    if (pair[0] === 0 && pair[1] === 0) delete counts[key];
    else counts[key] = pair;
  }
  return {
    relevant: Math.max(0, model.relevant + (relevant ? sign : 0)),
    irrelevant: Math.max(0, model.irrelevant + (relevant ? 0 : sign)),
    counts: pruned(counts),
  };
};

/** The class balance in log-odds: a project that rates mostly noise expects noise. */
export const learnedBias = (model: LearnedCounts): number => DAMPING * Math.log((model.relevant + 1) / (model.irrelevant + 1));

/**
 * A feature's learned weight in log-odds (positive: relevant). Zero for a feature no rated mention had:
 * what the ratings never saw says nothing.
 */
export const learnedWeight = (model: LearnedCounts, feature: string, unrated?: LearnedCounts): number => learnedWeightOfKey(model, hashFeature(feature), unrated);

/** learnedWeight of the feature whose key (hashFeature) is `key`. */
export const learnedWeightOfKey = (model: LearnedCounts, key: string, unrated?: LearnedCounts): number => {
  const pair = model.counts[key];
  const soft = unrated?.counts[key];
  if (!pair && !soft) return 0;
  // Unrated mentions' soft counts (semi-supervised.ts) add to the ratings' as more, lighter, observations.
  const pRelevant = ((pair?.[0] ?? 0) + (soft?.[0] ?? 0) + SMOOTHING) / (model.relevant + (unrated?.relevant ?? 0) + 2 * SMOOTHING);
  const pIrrelevant = ((pair?.[1] ?? 0) + (soft?.[1] ?? 0) + SMOOTHING) / (model.irrelevant + (unrated?.irrelevant ?? 0) + 2 * SMOOTHING);
  return DAMPING * Math.log(pRelevant / pIrrelevant);
};
