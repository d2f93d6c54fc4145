import { isVersionConflict, type Write } from "@earshot/platform/core";
import { MENTIONS, type MentionDoc } from "../../store";
import { commitChanges, numbered } from "../change-sequence";
import type { MentionDeps } from "../deps";
import { featuresOf } from "./features";
import { loadProjectRelevance } from "./project-model";
import { compileScorer, type Relevance, type Scorer } from "./score";
import { MAX_UNRATED_MENTIONS, selfTrain } from "./semi-supervised";

// When a project's model changes (a rating), it first learns from the project's unrated mentions
// (semi-supervised.ts), then the mentions it published in the last 30 days are scored again in the background, so filters and sorts by relevance follow the ratings without a job to run.
// Requests coalesce: however many ratings arrive during a pass, one more pass follows it. A rescored
// mention takes a number in the change feed (a reader filtering by relevance must see it move) but stages
// no `mention.updated`: the model moved, no person changed the mention, and a burst of ratings would
// otherwise send a webhook per mention of the month. Scores that move less than MIN_MOVE are left as
// they are (with the version that computed them), so a rating does not rewrite every mention.

export const RESCORE_DAYS = 30;
/** Mentions read and committed at a time. */
const PAGE = 200;
/** Smaller moves are not written. */
export const MIN_MOVE = 0.005;

/** One pass at a time per project, and at most one more waiting, shared by everyone who asked meanwhile. */
export class RescoreQueue {
  private readonly running = new Map<string, Promise<void>>();
  private readonly waiting = new Map<string, Promise<void>>();

  request(projectId: string, pass: () => Promise<void>): Promise<void> {
    const waiting = this.waiting.get(projectId);
    if (waiting) return waiting;
    const before = this.running.get(projectId) ?? Promise.resolve();
    const next = before.then(() => {
      this.waiting.delete(projectId);
      const run = pass();
      this.running.set(projectId, run);
      return run.finally(() => {
        if (this.running.get(projectId) === run) this.running.delete(projectId);
      });
    });
    this.waiting.set(projectId, next);
    return next;
  }

  /** Resolves once the passes asked for so far are done. */
  settled(projectId: string): Promise<void> {
    return (this.waiting.get(projectId) ?? this.running.get(projectId) ?? Promise.resolve()).catch(() => undefined);
  }
}

const moved = (before: MentionDoc["relevance"], after: Relevance) =>
  !before || before.label !== after.label || Math.abs(before.score - after.score) >= MIN_MOVE;

const commitRescored = async (deps: MentionDeps, projectId: string, updates: Array<{ before: MentionDoc; relevance: Relevance }>) => {
  await commitChanges(deps, new Map([[projectId, updates.length]]), (first) => {
    let seq = first.get(projectId)!;
    const writes: Write[] = updates.map(({ before, relevance }) => ({
      kind: "replace",
      collection: MENTIONS,
      doc: numbered({ ...before, relevance, _v: (before._v ?? 1) + 1 }, seq++),
      expectedVersion: before._v ?? 1,
    }));
    return { writes, events: [] };
  });
};

/**
 * Teaches the project's model what its unrated mentions of the last RESCORE_DAYS say (semi-supervised.ts)
 * and stores it with the model; the scorer to rescore with. A rating committed meanwhile wins (the pass it
 * queued learns again), so this never overwrites a newer model.
 */
const learnFromUnrated = async (deps: MentionDeps, projectId: string, since: Date): Promise<Scorer> => {
  const current = await loadProjectRelevance(deps, projectId);
  if (!current.doc) return current.scorer;
  const lists: string[][] = [];
  let cursor: string | null = null;
  do {
    const page: { items: MentionDoc[]; nextCursor: string | null } = await deps.collections.mentions.findPage(
      { projectId, publishedAt: { $gte: since } },
      { limit: PAGE, cursor, sortField: "publishedAt", direction: -1 },
    );
    for (const m of page.items) if (!m.feedback && lists.length < MAX_UNRATED_MENTIONS) lists.push(featuresOf(m));
    cursor = lists.length < MAX_UNRATED_MENTIONS ? page.nextCursor : null;
  } while (cursor);
  const unrated = selfTrain(lists, (soft) => {
    const scorer = compileScorer(current.learned, current.revision, current.prior, soft);
    return (features) => scorer.scoreFeatures(features).score;
  });
  if (!unrated) return current.scorer;
  const unratedRevision = current.unratedRevision + 1;
  try {
    await deps.collections.relevanceModels.updateVersioned(projectId, current.doc._v ?? 1, { $set: { unrated, unratedRevision } });
  } catch (err) {
    if (!isVersionConflict(err)) throw err;
    return (await loadProjectRelevance(deps, projectId)).scorer;
  }
  return compileScorer(current.learned, current.revision, current.prior, unrated, unratedRevision);
};

/** Scores the project's mentions of the last RESCORE_DAYS with its model as stored now; returns how many moved. */
export const rescoreProject = async (deps: MentionDeps, projectId: string): Promise<number> => {
  const since = new Date(deps.clock.now().getTime() - RESCORE_DAYS * 86_400_000);
  const scorer = await learnFromUnrated(deps, projectId, since);
  let cursor: string | null = null;
  let changed = 0;
  do {
    const page: { items: MentionDoc[]; nextCursor: string | null } = await deps.collections.mentions.findPage(
      { projectId, publishedAt: { $gte: since } },
      { limit: PAGE, cursor, sortField: "publishedAt", direction: -1 },
    );
    const updates = page.items.map((before) => ({ before, relevance: scorer.score(before) })).filter((u) => moved(u.before.relevance, u.relevance));
    if (updates.length > 0) {
      try {
        await commitRescored(deps, projectId, updates);
      } catch (err) {
        if (!isVersionConflict(err)) throw err;
        // A person changed one of them meanwhile: one by one from a fresh read; one that moves again is
        // left for the next pass (its change was committed with the newest model anyway).
        for (const u of updates) {
          const fresh = await deps.collections.mentions.findById(u.before._id);
          if (!fresh) continue;
          const relevance = scorer.score(fresh);
          if (!moved(fresh.relevance, relevance)) continue;
          await commitRescored(deps, projectId, [{ before: fresh, relevance }]).catch((e: unknown) => {
            if (!isVersionConflict(e)) throw e;
          });
        }
      }
      changed += updates.length;
    }
    cursor = page.nextCursor;
  } while (cursor);
  return changed;
};

/** Asks for a background pass over the project; the promise (never rejected) resolves when it is done. */
export const requestRescore = (deps: MentionDeps, projectId: string): Promise<void> =>
  deps.relevance.rescores
    .request(projectId, async () => {
      const changed = await rescoreProject(deps, projectId);
      deps.logger.debug({ projectId, changed }, "relevance rescored");
    })
    .catch((err: unknown) => deps.logger.error({ err, projectId }, "relevance rescore failed"));
