import { analyticsFields, MENTION_SORTS, mentionFields } from "@earshot/mention/fields";
import { MENTION_STATUS_WORDS, toFiltersMessage } from "@earshot/mention/filters";
import { z } from "zod";
import { defineOperation } from "../operation";
import { FILTERS_DOC, LIST_FILTERS_DOC, listQuerySchema, mentionFilterQuery, mentionListFilterQuery } from "../shared/mention-filters";
import { collapseQuery } from "../shared/story-collapse";
import { idField, pageQuery, projectId, resourceId } from "../shared/schemas";
import { wireValue } from "../shared/wire-enums";
import { mentionAnalyticsSchema, mentionSchema, mentionWithHistorySchema, presentMention, presentMentionAnalytics, presentMentionWithHistory } from "./resource";

const mentionPath = z.object({ mentionId: resourceId("men", "The mention id, e.g. men_01J…") }).strict();

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const mentionOperations = [
  defineOperation({
    name: "list_mentions",
    title: "List mentions",
    description:
      `Lists a project's mentions, newest published first (sort=relevance: highest relevance score first, then newest; mentions stored before scoring last), a page at a time: ` +
      `a cursor names a position in that order, so mentions arriving while you page never repeat or skip a row. ${FILTERS_DOC} ` +
      "viewId applies a saved view's filters; a filter given with it replaces the view's member of the same name. A view or category of another project is 400 naming viewId or categoryId.",
    method: "GET",
    path: "/mentions",
    scope: "mentions:read",
    tag: "Mentions",
    output: mentionSchema,
    input: {
      query: listQuerySchema({
        projectId,
        ...mentionFilterQuery,
        sort: z
          .enum(MENTION_SORTS)
          .optional()
          .describe("newest (default): newest published first; relevance: highest relevance score first, then newest. A cursor keeps the order it was made in."),
        collapse: collapseQuery,
        ...pageQuery.shape,
      }),
    },
    successStatus: 200,
    list: true,
    annotations: READ,
    handler: async (input, ctx) => {
      const res = await ctx.backends.mention.listMentions({
        projectId: input.projectId,
        filters: toFiltersMessage(input),
        viewId: input.viewId,
        limit: input.limit,
        cursor: input.cursor ?? "",
        sort: input.sort,
        collapse: input.collapse,
      });
      return { data: res.mentions.map(presentMention), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "get_mention_analytics",
    title: "Mention analytics",
    description:
      "Counts a project's mentions published between since and until in buckets of interval (hour, day or week; days and weeks begin in the project's time zone, weeks on Monday), " +
      "split by groupBy (keyword, group, source, sentiment, status or category; without it one key, all), with totals and share of voice between the My brand and Competitors groups. " +
      `At most 400 buckets; until defaults to now and since to 30 days before until. ${LIST_FILTERS_DOC}`,
    method: "GET",
    path: "/mentions/analytics",
    scope: "mentions:read",
    tag: "Mentions",
    output: mentionAnalyticsSchema,
    input: {
      query: listQuerySchema({
        projectId,
        since: analyticsFields.since.optional(),
        until: analyticsFields.until.optional(),
        interval: analyticsFields.interval.default("day"),
        groupBy: analyticsFields.groupBy.optional(),
        ...mentionListFilterQuery,
      }),
    },
    successStatus: 200,
    annotations: READ,
    handler: async (input, ctx) => {
      const { since, until, interval, groupBy, ...filters } = input;
      const res = await ctx.backends.mention.getMentionAnalytics({
        projectId: input.projectId,
        since: since ? new Date(since) : undefined,
        until: until ? new Date(until) : undefined,
        interval,
        groupBy: groupBy ?? "",
        filters: toFiltersMessage(filters),
      });
      return { data: presentMentionAnalytics(res, { interval, groupBy: groupBy ?? null }) };
    },
  }),
  defineOperation({
    name: "get_mention",
    title: "Get a mention",
    description: "Returns one mention with its triage history: who changed its status or category, from what to what, and when (the last 100 changes).",
    method: "GET",
    path: "/mentions/:mentionId",
    scope: "mentions:read",
    tag: "Mentions",
    output: mentionWithHistorySchema,
    input: { path: mentionPath },
    successStatus: 200,
    annotations: READ,
    handler: async (input, ctx) => {
      const { mention } = await ctx.backends.mention.getMention({ mentionId: input.mentionId });
      return { data: presentMentionWithHistory(mention) };
    },
  }),
  defineOperation({
    name: "update_mention_status",
    title: "Set a mention's status",
    description: "Sets a mention's status to open, done or follow_up (editor or owner); the change is kept in its history. Setting the status it already has changes nothing.",
    method: "PATCH",
    path: "/mentions/:mentionId",
    scope: "mentions:write",
    tag: "Mentions",
    output: mentionSchema,
    input: { path: mentionPath, body: z.object({ status: mentionFields.status }).strict() },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { mention } = await ctx.backends.mention.updateMentionStatus({ mentionId: input.mentionId, status: wireValue(MENTION_STATUS_WORDS, input.status) });
      return { data: presentMention(mention) };
    },
  }),
  defineOperation({
    name: "categorize_mention",
    title: "Categorize a mention",
    description:
      "Puts a mention in a category of its project, or takes it out of its category with categoryId null (editor or owner); the change is kept in its history. " +
      "A category of another project is 400 naming categoryId.",
    method: "PUT",
    path: "/mentions/:mentionId/category",
    scope: "mentions:write",
    tag: "Mentions",
    output: mentionSchema,
    input: { path: mentionPath, body: z.object({ categoryId: idField("cat").nullable().describe(mentionFields.categoryId.description ?? "") }).strict() },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { mention } = await ctx.backends.mention.categorizeMention({ mentionId: input.mentionId, categoryId: input.categoryId ?? "" });
      return { data: presentMention(mention) };
    },
  }),
];
