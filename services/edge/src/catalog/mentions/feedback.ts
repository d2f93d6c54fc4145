import { feedbackReasonField } from "@earshot/mention/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { resourceId } from "../shared/schemas";
import { mentionSchema, presentMention } from "./resource";

// rate_mention: a person tells the project's relevance model whether a mention matters. Kept beside the
// other mention writes; the mention service owns the rule and the model.

const mentionPath = z.object({ mentionId: resourceId("men", "The mention id, e.g. men_01J…") }).strict();

const feedbackBody = z
  .object({
    relevant: z.boolean({ message: "is required: true or false" }).describe("Whether the mention is about the project."),
    reason: feedbackReasonField.optional(),
  })
  .strict();

export const mentionFeedbackOperations = [
  defineOperation({
    name: "rate_mention",
    title: "Rate a mention's relevance",
    description:
      "Tells the project's relevance model whether a mention is relevant (editor or owner). The model learns at once: the mention is rescored in the answer and the project's " +
      "mentions of the last 30 days follow in the background. A later rating replaces the earlier one (the model forgets the earlier one); the rating is kept in the mention's " +
      "feedback and its history. Rating it again the same way changes nothing.",
    method: "POST",
    path: "/mentions/:mentionId/feedback",
    scope: "mentions:write",
    tag: "Mentions",
    output: mentionSchema,
    input: { path: mentionPath, body: feedbackBody },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { mention } = await ctx.backends.mention.rateMention({ mentionId: input.mentionId, relevant: input.relevant, reason: input.reason });
      return { data: presentMention(mention) };
    },
  }),
];
