import type { MentionDeps } from "../deps";
import type { ProjectStateDoc, RelevanceModelDoc } from "../../store";
import { emptyCounts, type LearnedCounts } from "./model";
import { priorOf, type PriorWeights } from "./prior";
import { compileScorer, type Scorer } from "./score";

// A project's relevance model as the verbs use it: its learned counts (one document per project in the
// mention store) and its prior, from the copies this service keeps of the project's description and its
// active keywords. The prior is cached per process until the keywords' revision or the description moves.

export interface ProjectRelevance {
  doc: RelevanceModelDoc | null;
  learned: LearnedCounts;
  /** What the project's unrated mentions taught at the last rescore pass. */
  unrated: LearnedCounts | undefined;
  unratedRevision: number;
  revision: number;
  prior: PriorWeights;
  scorer: Scorer;
}

/**
 * This process's priors, by project: rebuilt when the project's keywords or description change; and the
 * scorer compiled from the prior and the stored model, kept until either moves (ingest scores every batch
 * with it, and a kept scorer remembers its features' weights).
 */
export class RelevancePriors {
  private readonly cache = new Map<string, { key: string; prior: PriorWeights }>();
  private readonly scorers = new Map<string, { key: string; prior: PriorWeights; scorer: Scorer }>();

  scorerFor(projectId: string, key: string, prior: PriorWeights, compile: () => Scorer): Scorer {
    const cached = this.scorers.get(projectId);
    if (cached?.key === key && cached.prior === prior) return cached.scorer;
    const scorer = compile();
    this.scorers.set(projectId, { key, prior, scorer });
    return scorer;
  }

  async priorFor(deps: MentionDeps, projectId: string, state: ProjectStateDoc | null): Promise<PriorWeights> {
    const key = `${state?.keywordsRevision ?? 0}|${state?.description ?? ""}`;
    const cached = this.cache.get(projectId);
    if (cached?.key === key) return cached.prior;
    const keywords = await deps.collections.keywords.find({ projectId, active: true });
    const prior = priorOf({ description: state?.description ?? "", keywords });
    this.cache.set(projectId, { key, prior });
    return prior;
  }
}

export const learnedOf = (doc: RelevanceModelDoc | null): LearnedCounts =>
  doc ? { relevant: doc.relevant, irrelevant: doc.irrelevant, counts: doc.counts } : emptyCounts();

/** The project's model as stored now; `state` when the caller already read it. */
export const loadProjectRelevance = async (deps: MentionDeps, projectId: string, state?: ProjectStateDoc | null): Promise<ProjectRelevance> => {
  const [doc, projectState] = await Promise.all([
    deps.collections.relevanceModels.findById(projectId),
    state === undefined ? deps.collections.projects.findById(projectId) : Promise.resolve(state),
  ]);
  const prior = await deps.relevance.priors.priorFor(deps, projectId, projectState);
  const learned = learnedOf(doc);
  const revision = doc?.revision ?? 0;
  const unrated = doc?.unrated;
  const unratedRevision = doc?.unratedRevision ?? 0;
  // The document's version moves with every write of it (a rating, a rescore pass's unrated counts).
  const scorer = deps.relevance.priors.scorerFor(projectId, `${doc?._v ?? 0}|${revision}|${unratedRevision}`, prior, () =>
    compileScorer(learned, revision, prior, unrated, unratedRevision),
  );
  return { doc, learned, unrated, unratedRevision, revision, prior, scorer };
};
