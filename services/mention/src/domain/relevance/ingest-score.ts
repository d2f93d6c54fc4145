import type { MentionDoc, ProjectStateDoc } from "../../store";
import type { MentionDeps } from "../deps";
import { loadProjectRelevance } from "./project-model";

/**
 * Scores new mentions with their project's model as stored now (one read of the model per project in the
 * batch; the prior is cached per process): every mention is stored with its relevance.
 */
export const scoreIngested = async (deps: MentionDeps, states: ReadonlyMap<string, ProjectStateDoc>, mentions: readonly MentionDoc[]): Promise<void> => {
  const byProject = new Map<string, MentionDoc[]>();
  for (const m of mentions) {
    const list = byProject.get(m.projectId);
    if (list) list.push(m);
    else byProject.set(m.projectId, [m]);
  }
  for (const [projectId, list] of byProject) {
    const { scorer } = await loadProjectRelevance(deps, projectId, states.get(projectId) ?? null);
    for (const m of list) m.relevance = scorer.score(m);
  }
};
