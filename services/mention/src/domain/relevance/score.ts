import { featuresOf, type RelevanceInput } from "./features";
import { labelOf, type RelevanceLabel } from "./label";
import { learnedBias, learnedWeight, type LearnedCounts, MODEL_FAMILY } from "./model";
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

/** Feature weights a scorer remembers; past it, it starts over (bounded memory for a long-lived model). */
const MAX_REMEMBERED_WEIGHTS = 50_000;

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

export const modelVersion = (revision: number, prior: PriorWeights, unratedRevision = 0): string =>
  `${MODEL_FAMILY}.${revision}.${priorFingerprint(prior)}${unratedRevision > 0 ? `.u${unratedRevision}` : ""}`;

export const compileScorer = (learned: LearnedCounts, revision: number, prior: PriorWeights, unrated?: LearnedCounts, unratedRevision = 0): Scorer => {
  const model = modelVersion(revision, prior, unratedRevision);
  const bias = learnedBias(learned);
  // A scorer lives while its model does (project-model.ts caches it), and posts repeat most of their
  // features (source, keyword, case, common words), so each feature's weight is worked out once.
  const weights = new Map<string, number>();
  const weightOf = (feature: string): number => {
    let weight = weights.get(feature);
    if (weight === undefined) {
      if (weights.size >= MAX_REMEMBERED_WEIGHTS) weights.clear();
      weight = (prior.get(feature) ?? 0) + learnedWeight(learned, feature, unrated);
      weights.set(feature, weight);
    }
    return weight;
  };
  const scoreFeatures = (features: readonly string[]): Relevance => {
    let logit = bias;
    const moved: RelevanceReason[] = [];
    for (const feature of features) {
      const weight = weightOf(feature);
      if (weight === 0) continue;
      logit += weight;
      moved.push({ feature, weight });
    }
    // Largest moves first; ties by name so the reasons are stable.
    moved.sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight) || (a.feature < b.feature ? -1 : 1));
    const score = round(1 / (1 + Math.exp(-logit)), 4);
    return { score, label: labelOf(score), reasons: moved.slice(0, MAX_REASONS).map((r) => ({ feature: r.feature, weight: round(r.weight, 3) })), model };
  };
  return { model, score: (input) => scoreFeatures(featuresOf(input)), scoreFeatures };
};
