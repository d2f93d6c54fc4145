import { type MentionFilterInput, mentionFilterFields, TEXT_LIMITS } from "@earshot/mention/fields";
import { textField } from "@earshot/platform";
import type { mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { queryList, resourceId } from "../schemas";

// The list_mentions filters as request fields (list_mentions, export_mentions, get_mention_analytics) and
// as the gRPC message. The members are @earshot/mention/fields' own; a list member is a queryList, so a
// REST query may repeat it or separate values with commas and MCP sends an array.

export const projectId = resourceId("The project id, e.g. prj_01J…");

const listFilters = {
  status: queryList(mentionFilterFields.status).optional(),
  keywordId: queryList(mentionFilterFields.keywordId).optional(),
  groupId: queryList(mentionFilterFields.groupId).optional(),
  source: queryList(mentionFilterFields.source).optional(),
  categoryId: queryList(mentionFilterFields.categoryId).optional(),
  sentiment: queryList(mentionFilterFields.sentiment).optional(),
  q: mentionFilterFields.q.optional(),
  author: mentionFilterFields.author.optional(),
};

/** Every filter but the published-at bounds (analytics has its own period). */
export const mentionListFilterQuery = listFilters;

/** Every filter, the published-at bounds and a saved view included. */
export const mentionFilterQuery = {
  ...listFilters,
  since: mentionFilterFields.since.optional(),
  until: mentionFilterFields.until.optional(),
  viewId: textField(TEXT_LIMITS.id)
    .optional()
    .describe("Applies a saved view of the project (its id); a filter given here replaces the view's member of the same name."),
};

/** until must come after since, when both are given (as in a saved view's filters). */
export const sinceBeforeUntil = (input: { since?: string | undefined; until?: string | undefined }, ctx: z.RefinementCtx): void => {
  if (input.since && input.until && Date.parse(input.since) >= Date.parse(input.until)) {
    ctx.addIssue({ code: "custom", message: "must be after since", path: ["until"] });
  }
};

/** The gRPC message of the filters: an empty list filters nothing, as a member left out. */
export const filtersMessage = (f: MentionFilterInput): mentionV1.MentionFilters => ({
  status: f.status ?? [],
  keywordIds: f.keywordId ?? [],
  groupIds: f.groupId ?? [],
  sources: f.source ?? [],
  categoryIds: f.categoryId ?? [],
  sentiments: f.sentiment ?? [],
  q: f.q,
  author: f.author,
  since: f.since ? new Date(f.since) : undefined,
  until: f.until ? new Date(f.until) : undefined,
});

export const listQuerySchema = <S extends z.ZodRawShape>(shape: S) => z.object(shape).superRefine(sinceBeforeUntil);
