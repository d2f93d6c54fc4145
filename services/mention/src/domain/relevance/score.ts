import { type FeatureKind, featureName, type RelevanceInput, visitFeatures } from "./features";
import { labelOf, type RelevanceLabel } from "./label";
import { FNV_OFFSET, fnvOn, fnvPair } from "../fnv";
import { featureHash, learnedBias, type LearnedCounts, learnedWeightOfKey, MODEL_FAMILY } from "./model";
import { priorFingerprint, type PriorWeights } from "./prior";

// A mention's relevance under a project's model: the prior's and the ratings' weights of its features
// added in log-odds, squashed to 0..1. Pure: the same mention and model give the same score anywhere.

export interface RelevanceReason {
  feature: string;
  weight: number;
}

export interface Relevance {
  score: number;
  label: RelevanceLabel;
  reasons: RelevanceReason[];
  model: string;
}

/** Reasons shown: the features that moved the score most. */
export const MAX_REASONS = 5;

export interface Scorer {
  /** The version scores carry: the learner, the ratings' revision and the prior's fingerprint. */
  readonly model: string;
  score(input: RelevanceInput): Relevance;
  /** The score of features already extracted (the bench and learning reuse them). */
  scoreFeatures(features: readonly string[]): Relevance;
}

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

export const modelVersion = (revision: number, prior: PriorWeights, unratedRevision = 0): string =>
  `${MODEL_FAMILY}.${revision}.${priorFingerprint(prior)}${unratedRevision > 0 ? `.u${unratedRevision}` : ""}`;

export const compileScorer = (learned: LearnedCounts, revision: number, prior: PriorWeights, unrated?: LearnedCounts, unratedRevision = 0): Scorer => {
  const model = modelVersion(revision, prior, unratedRevision);
  const bias = learnedBias(learned);
  const weights = weightsByHash(learned, prior, unrated);
  const finish = (logit: number, moved: RelevanceReason[]): Relevance => {
    // Largest moves first; ties by name so the reasons are stable.
    moved.sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight) || (a.feature < b.feature ? -1 : 1));
    const score = round(1 / (1 + Math.exp(-logit)), 4);
    return { score, label: labelOf(score), reasons: moved.slice(0, MAX_REASONS).map((r) => ({ feature: r.feature, weight: round(r.weight, 3) })), model };
  };
  const scoreFeatures = (features: readonly string[]): Relevance => {
    let logit = bias;
    const moved: RelevanceReason[] = [];
    for (const feature of features) {
      const weight = weights.get(featureHash(feature));
      if (weight === undefined) continue;
      logit += weight;
      moved.push({ feature, weight });
    }
    return finish(logit, moved);
  };
  // Every ingested mention is scored here, so its features are hashed as they are found, in parts, without
  // building their names; only a feature with a weight is named (for the reasons), and each counts once.
  const score = (input: RelevanceInput): Relevance => {
    let logit = bias;
    const moved: RelevanceReason[] = [];
    const seen = new Set<number>();
    visitFeatures(input, (kind, first, second) => {
      const h = (second === undefined ? fnvOn(KIND_STATES[kind], first) : fnvPair(KIND_STATES[kind], first, second)) >>> 0;
      if (seen.has(h)) return;
      seen.add(h);
      const weight = weights.get(h);
      if (weight === undefined) return;
      logit += weight;
      moved.push({ feature: featureName(kind, first, second), weight });
    });
    return finish(logit, moved);
  };
  return { model, score, scoreFeatures };
};

const KINDS: readonly FeatureKind[] = ["source", "author", "keyword", "case", "word", "pair", "domain"];
/** Each kind's name prefix (`word:`) hashed once. */
const KIND_STATES = Object.fromEntries(KINDS.map((kind) => [kind, fnvOn(FNV_OFFSET, `${kind}:`)])) as Record<FeatureKind, number>;

/**
 * Every feature with a weight, by its hash: the prior's (by name) plus what the ratings and the unrated
 * mentions taught (already kept by hash). Features sharing a hash share their counts in the model anyway.
 */
const weightsByHash = (learned: LearnedCounts, prior: PriorWeights, unrated?: LearnedCounts): Map<number, number> => {
  const learnedByHash = new Map<number, number>();
  for (const key of new Set([...Object.keys(learned.counts), ...Object.keys(unrated?.counts ?? {})])) {
    learnedByHash.set(parseInt(key, 36), learnedWeightOfKey(learned, key, unrated));
  }
  const weights = new Map<number, number>();
  for (const [h, w] of learnedByHash) if (w !== 0) weights.set(h, w);
  for (const [feature, w] of prior) {
    const h = featureHash(feature);
    // As a feature's weight is its prior plus its learned weight, in that order.
    const sum = w + (learnedByHash.get(h) ?? 0);
    if (sum === 0) weights.delete(h);
    else weights.set(h, sum);
  }
  return weights;
};
