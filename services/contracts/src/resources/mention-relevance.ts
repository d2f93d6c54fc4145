import { mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { RELEVANCE_LABEL_WORDS, RELEVANCE_LABELS, type RelevanceLabel } from "../fields";
import { at } from "./present";

// A mention's relevance (the project's model's score, its label, why, and which model) and its feedback
// (the latest person's rating), as every presenter of a mention shows them.

/** An unknown or unset label (a newer producer's) reads as the middle one. */
const labelWord = (label: mentionV1.RelevanceLabel): RelevanceLabel => RELEVANCE_LABEL_WORDS.word(label) ?? "uncertain";

export const mentionRelevanceSchema = z
  .object({
    score: z.number().min(0).max(1).describe("0 (noise) to 1 (surely about the project)."),
    label: z.enum(RELEVANCE_LABELS).describe("relevant from 0.65, irrelevant below 0.35, uncertain between."),
    reasons: z
      .array(z.object({ feature: z.string().describe("e.g. word:tracker, pair:_ algebra, source:reddit, author:jdoe, domain:linear.app, keyword:kw_…, case:lower."), weight: z.number().describe("Log-odds it added (positive: relevant).") }))
      .describe("The features that moved the score most, largest first (at most 5)."),
    model: z.string().describe("The model version that computed the score; it changes with every rating of the project and every change of its description or keywords."),
  })
  .nullable()
  .describe("How relevant the project's model finds the mention; null on mentions stored before scoring.");

export const mentionFeedbackSchema = z
  .object({
    relevant: z.boolean(),
    reason: z.string().nullable(),
    byUserId: z.string(),
    at: z.string().describe("ISO 8601 UTC."),
  })
  .nullable()
  .describe("The latest rating by a person (rate_mention); null while unrated.");

export const presentRelevance = (r: mentionV1.Relevance | undefined): z.output<typeof mentionRelevanceSchema> =>
  r ? { score: r.score, label: labelWord(r.label), reasons: r.reasons.map((x) => ({ feature: x.feature, weight: x.weight })), model: r.model } : null;

export const presentFeedback = (f: mentionV1.MentionFeedback | undefined): z.output<typeof mentionFeedbackSchema> =>
  f ? { relevant: f.relevant, reason: f.reason ?? null, byUserId: f.byUserId, at: at(f.at, "feedback at") } : null;
