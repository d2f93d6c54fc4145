import { createKeywordGroupSchema, updateKeywordGroupSchema } from "@earshot/keyword/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { pageQuery, projectId, resourceId } from "../shared/schemas";
import { keywordGroupSchema, presentKeywordGroup } from "./resource";

const groupPath = z.object({ groupId: resourceId("kwg", "The keyword group id, e.g. kwg_01J…") }).strict();

export const keywordGroupOperations = [
  defineOperation({
    name: "list_keyword_groups",
    title: "List keyword groups",
    description:
      "Lists a project's keyword groups in display order (order ascending, then creation), the default My brand and Competitors included, each with its counts of active (keywordCount) and deactivated (inactiveKeywordCount) keywords.",
    method: "GET",
    path: "/keyword-groups",
    scope: "keywords:read",
    tag: "Keyword groups",
    output: keywordGroupSchema,
    input: { query: z.object({ projectId, ...pageQuery.shape }) },
    successStatus: 200,
    list: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.keyword.listKeywordGroups({ projectId: input.projectId, limit: input.limit, cursor: input.cursor ?? "" });
      return { data: res.groups.map(presentKeywordGroup), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "create_keyword_group",
    title: "Create a keyword group",
    description:
      "Adds a custom keyword group to a project (editor or owner). A project's groups, My brand and Competitors included, are capped by the workspace's keyword allowance (100 on free): 402 usage_limited (limit keyword_groups) beyond it.",
    method: "POST",
    path: "/keyword-groups",
    scope: "keywords:write",
    tag: "Keyword groups",
    output: keywordGroupSchema,
    input: { body: z.object({ projectId, ...createKeywordGroupSchema.shape }).strict() },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (input, ctx) => {
      const { group } = await ctx.backends.keyword.createKeywordGroup({ projectId: input.projectId, name: input.name });
      return { data: presentKeywordGroup(group) };
    },
  }),
  defineOperation({
    name: "update_keyword_group",
    title: "Rename or reorder a keyword group",
    description:
      "Renames a custom group and/or moves it: order is its position among the project's groups (ascending; ties keep creation order). Editor or owner. " +
      "The default groups My brand and Competitors are fixed: changing one is 409 conflict.",
    method: "PATCH",
    path: "/keyword-groups/:groupId",
    scope: "keywords:write",
    tag: "Keyword groups",
    output: keywordGroupSchema,
    input: { path: groupPath, body: updateKeywordGroupSchema },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { group } = await ctx.backends.keyword.updateKeywordGroup({ groupId: input.groupId, name: input.name, order: input.order });
      return { data: presentKeywordGroup(group) };
    },
  }),
  defineOperation({
    name: "delete_keyword_group",
    title: "Delete a keyword group",
    description:
      "Deletes a custom group (editor or owner); its deactivated keywords move to My brand. 409 conflict while it holds active keywords (move them with update_keyword groupId or deactivate them first) and for My brand and Competitors, which cannot be deleted.",
    method: "DELETE",
    path: "/keyword-groups/:groupId",
    scope: "keywords:write",
    tag: "Keyword groups",
    output: keywordGroupSchema,
    input: { path: groupPath },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { group } = await ctx.backends.keyword.deleteKeywordGroup({ groupId: input.groupId });
      return { data: presentKeywordGroup(group) };
    },
  }),
];
