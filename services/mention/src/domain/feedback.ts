import { isUniqueViolation, textError, validationFailed, withVersionRetry, type FieldError } from "@earshot/platform/core";
import { TEXT_LIMITS } from "../fields";
import { mentionUpdatedEvent } from "../events";
import { MENTIONS, type MentionDoc, RELEVANCE_MODELS, type RelevanceModelDoc } from "../store";
import { commitChanges, numbered } from "./change-sequence";
import type { Caller, MentionDeps } from "./deps";
import { loadMention, MAX_HISTORY } from "./mentions";
import { featuresOf } from "./relevance/features";
import { learn } from "./relevance/model";
import { loadProjectRelevance } from "./relevance/project-model";
import { requestRescore } from "./relevance/rescore";
import { compileScorer } from "./relevance/score";
import { withStorySizes } from "./stories/story-sizes";

// A person's rating of a mention (rate_mention): a mention write like a status change (history entry,
// change feed number, `mention.updated`), committed together with the project's relevance model it
// teaches. The model is kept exact by counts: a later rating of the same mention takes the earlier one
// back before adding itself. The rated mention is rescored in the same commit; the rest of the project's
// last 30 days follow in the background (relevance/rescore.ts).


export interface FeedbackInput {
  relevant?: unknown;
  reason?: unknown;
}

const checkFeedback = (input: FeedbackInput): { relevant: boolean; reason?: string } => {
  const errors: FieldError[] = [];
  if (input.relevant === undefined || input.relevant === null) errors.push({ path: "relevant", message: "is required" });
  else if (typeof input.relevant !== "boolean") errors.push({ path: "relevant", message: "must be true or false" });
  if (input.reason !== undefined && input.reason !== null) {
    if (typeof input.reason !== "string") errors.push({ path: "reason", message: "must be a string" });
    else {
      const message = textError(input.reason.trim(), TEXT_LIMITS.feedbackReason);
      if (message) errors.push({ path: "reason", message });
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
  const reason = typeof input.reason === "string" && input.reason.trim() !== "" ? input.reason.trim() : undefined;
  return { relevant: input.relevant as boolean, reason };
};

const word = (relevant: boolean | undefined) => (relevant === undefined ? "" : relevant ? "relevant" : "irrelevant");

/** The project's model document, created empty on the first rating (a racing first rating finds it made). */
const ensureModel = async (deps: MentionDeps, mention: MentionDoc, existing: RelevanceModelDoc | null): Promise<RelevanceModelDoc> => {
  if (existing) return existing;
  const empty: RelevanceModelDoc = { _id: mention.projectId, workspaceId: mention.workspaceId, revision: 0, relevant: 0, irrelevant: 0, counts: {}, updatedAt: deps.clock.now(), _v: 1 };
  try {
    await deps.collections.relevanceModels.insertOne(empty);
    return empty;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return (await deps.collections.relevanceModels.findById(mention.projectId))!;
  }
};

/** The rating committed with the model it teaches; `mention` read inside the project's rating queue. */
const commitRating = async (deps: MentionDeps, caller: Caller, mention: MentionDoc, relevant: boolean, reason: string | undefined): Promise<MentionDoc> => {
  const earlier = mention.feedback;
  const current = await loadProjectRelevance(deps, mention.projectId);
  const model = await ensureModel(deps, mention, current.doc);
  const features = featuresOf(mention);
  const unlearned = earlier ? learn(current.learned, features, earlier.relevant, -1) : current.learned;
  const learned = learn(unlearned, features, relevant, 1);
  const now = deps.clock.now();
  const nextModel: RelevanceModelDoc = { ...model, ...learned, revision: model.revision + 1, updatedAt: now, _v: (model._v ?? 1) + 1 };
  const scorer = compileScorer(learned, nextModel.revision, current.prior, current.unrated, current.unratedRevision);
  const next: MentionDoc = {
    ...mention,
    feedback: reason === undefined ? { relevant, byUserId: caller.userId, at: now } : { relevant, reason, byUserId: caller.userId, at: now },
    relevance: scorer.score(mention),
    updatedAt: now,
    _v: (mention._v ?? 1) + 1,
    history: [...mention.history, { field: "feedback" as const, from: word(earlier?.relevant), to: word(relevant), byUserId: caller.userId, at: now }].slice(-MAX_HISTORY),
  };
  let stored = next;
  // The event presents the story's size as read now; the stored document never holds it.
  const [{ storySize }] = (await withStorySizes(deps, [next])) as [MentionDoc];
  await commitChanges(deps, new Map([[mention.projectId, 1]]), (first) => {
    stored = numbered(next, first.get(mention.projectId)!);
    return {
      writes: [
        { kind: "replace", collection: MENTIONS, doc: stored, expectedVersion: mention._v ?? 1 },
        { kind: "replace", collection: RELEVANCE_MODELS, doc: nextModel, expectedVersion: model._v ?? 1 },
      ],
      events: [mentionUpdatedEvent({ ...stored, storySize }, ["feedback", "relevance"], caller.userId)],
    };
  });
  return stored;
};

/**
 * Records the caller's rating (editor); the same rating again (value and reason) changes nothing. A
 * process rates one mention of a project at a time (each replaces the project's model at its version);
 * replicas racing for the model read again and retry.
 */
export const rateMention = async (deps: MentionDeps, caller: Caller, mentionId: string, input: FeedbackInput): Promise<MentionDoc> => {
  const { relevant, reason } = checkFeedback(input);
  let taught = false;
  const result = await withVersionRetry(async () => {
    const { mention: loaded } = await loadMention(deps, caller, mentionId, "editor");
    return deps.relevance.ratings.run(loaded.projectId, async () => {
      const mention = (await deps.collections.mentions.findById(mentionId)) ?? loaded;
      const earlier = mention.feedback;
      if (earlier && earlier.relevant === relevant && earlier.reason === reason) return mention;
      const stored = await commitRating(deps, caller, mention, relevant, reason);
      taught = true;
      return stored;
    });
  });
  if (taught) void requestRescore(deps, result.projectId);
  return result;
};
