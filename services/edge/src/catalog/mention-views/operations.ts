import { createViewSchema, updateViewSchema, viewFields } from "@earshot/mention/fields";
import { toFiltersMessage } from "@earshot/mention/filters";
import { z } from "zod";
import { defineOperation } from "../operation";
import { mentionFiltersBody } from "../shared/mention-filters";
import { pageQuery, projectId, resourceId } from "../shared/schemas";
import { mentionViewSchema, presentMentionView } from "./resource";

const viewPath = z.object({ viewId: resourceId("view", "The saved view's id, e.g. view_01J…") }).strict();

/** A view's filters as the API takes them: the mention service's, their ids of their kinds' shape. */
const viewFilters = mentionFiltersBody.describe(viewFields.filters.description ?? "");

const FILTERS =
  "filters holds list_mentions filters as JSON: status, keywordId, groupId, source, categoryId, sentiment and author as arrays, q, since and until as strings " +
  "(e.g. { \"status\": [\"open\", \"follow_up\"], \"sentiment\": [\"negative\"] }); they are checked as list_mentions checks them, unknown members are 400.";

export const mentionViewOperations = [
  defineOperation({
    name: "list_mention_views",
    title: "List saved views",
    description: "Lists a project's saved mention views in display order (order ascending, then creation). Pass a view's id as list_mentions viewId to apply it.",
    method: "GET",
    path: "/mention-views",
    scope: "mentions:read",
    tag: "Mention views",
    output: mentionViewSchema,
    input: { query: z.object({ projectId, ...pageQuery.shape }) },
    successStatus: 200,
    list: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.mention.listMentionViews({ projectId: input.projectId, limit: input.limit, cursor: input.cursor ?? "" });
      return { data: res.views.map(presentMentionView), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "get_mention_view",
    title: "Get a saved view",
    description: "Reads one saved view: its project, name, filters and order. A view of a project the caller cannot see is 404.",
    method: "GET",
    path: "/mention-views/:viewId",
    scope: "mentions:read",
    tag: "Mention views",
    output: mentionViewSchema,
    input: { path: viewPath },
    successStatus: 200,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { view } = await ctx.backends.mention.getMentionView({ viewId: input.viewId });
      return { data: presentMentionView(view) };
    },
  }),
  defineOperation({
    name: "create_mention_view",
    title: "Save a view",
    description: `Saves a named set of list_mentions filters in a project (editor or owner). ${FILTERS}`,
    method: "POST",
    path: "/mention-views",
    scope: "mentions:write",
    tag: "Mention views",
    output: mentionViewSchema,
    input: { body: z.object({ projectId, ...createViewSchema.shape, filters: viewFilters.default({}) }).strict() },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (input, ctx) => {
      const { view } = await ctx.backends.mention.createMentionView({
        projectId: input.projectId,
        name: input.name,
        filters: toFiltersMessage(input.filters),
        order: input.order,
      });
      return { data: presentMentionView(view) };
    },
  }),
  defineOperation({
    name: "update_mention_view",
    title: "Update a saved view",
    description: `Changes any of a saved view's name, filters (given filters replace the old ones whole) and order (editor or owner). ${FILTERS}`,
    method: "PATCH",
    path: "/mention-views/:viewId",
    scope: "mentions:write",
    tag: "Mention views",
    output: mentionViewSchema,
    input: { path: viewPath, body: updateViewSchema.safeExtend({ filters: viewFilters.optional() }) },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { view } = await ctx.backends.mention.updateMentionView({
        viewId: input.viewId,
        name: input.name,
        filters: input.filters ? toFiltersMessage(input.filters) : undefined,
        order: input.order,
      });
      return { data: presentMentionView(view) };
    },
  }),
  defineOperation({
    name: "delete_mention_view",
    title: "Delete a saved view",
    description: "Deletes a saved view (editor or owner); no mention changes. Returns the deleted view.",
    method: "DELETE",
    path: "/mention-views/:viewId",
    scope: "mentions:write",
    tag: "Mention views",
    output: mentionViewSchema,
    input: { path: viewPath },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { view } = await ctx.backends.mention.deleteMentionView({ viewId: input.viewId });
      return { data: presentMentionView(view) };
    },
  }),
];
