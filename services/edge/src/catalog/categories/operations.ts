import { createCategorySchema, updateCategorySchema } from "@earshot/mention/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { pageQuery, projectId, resourceId } from "../shared/schemas";
import { categorySchema, presentCategory } from "./resource";

const categoryPath = z.object({ categoryId: resourceId("cat", "The category id, e.g. cat_01J…") }).strict();

export const categoryOperations = [
  defineOperation({
    name: "list_categories",
    title: "List categories",
    description: "Lists a project's mention categories in display order (order ascending, then creation).",
    method: "GET",
    path: "/categories",
    scope: "mentions:read",
    tag: "Categories",
    output: categorySchema,
    input: { query: z.object({ projectId, ...pageQuery.shape }) },
    successStatus: 200,
    list: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.mention.listCategories({ projectId: input.projectId, limit: input.limit, cursor: input.cursor ?? "" });
      return { data: res.categories.map(presentCategory), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "create_category",
    title: "Create a category",
    description: "Adds a category for triaging a project's mentions (editor or owner): a name, and optionally a description, an icon (e.g. an emoji) and its order.",
    method: "POST",
    path: "/categories",
    scope: "mentions:write",
    tag: "Categories",
    output: categorySchema,
    input: { body: z.object({ projectId, ...createCategorySchema.shape }).strict() },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (input, ctx) => {
      const { category } = await ctx.backends.mention.createCategory({
        projectId: input.projectId,
        name: input.name,
        description: input.description,
        icon: input.icon,
        order: input.order,
      });
      return { data: presentCategory(category) };
    },
  }),
  defineOperation({
    name: "update_category",
    title: "Update a category",
    description: "Changes any of a category's name, description, icon and order (editor or owner).",
    method: "PATCH",
    path: "/categories/:categoryId",
    scope: "mentions:write",
    tag: "Categories",
    output: categorySchema,
    input: { path: categoryPath, body: updateCategorySchema },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { category } = await ctx.backends.mention.updateCategory({
        categoryId: input.categoryId,
        name: input.name,
        description: input.description,
        icon: input.icon,
        order: input.order,
      });
      return { data: presentCategory(category) };
    },
  }),
  defineOperation({
    name: "delete_category",
    title: "Delete a category",
    description:
      "Deletes a category (editor or owner). Its mentions are kept and become uncategorized at once: every read after the delete shows them with categoryId null. Returns the deleted category.",
    method: "DELETE",
    path: "/categories/:categoryId",
    scope: "mentions:write",
    tag: "Categories",
    output: categorySchema,
    input: { path: categoryPath },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { category } = await ctx.backends.mention.deleteCategory({ categoryId: input.categoryId });
      return { data: presentCategory(category) };
    },
  }),
];
