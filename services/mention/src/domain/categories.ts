import {
  newId,
  notFound,
  type Page,
  pageLimit,
  runOnce,
  validationFailed,
  withCursorErrors,
  withVersionRetry,
  type Write,
} from "@earshot/platform/core";
import { createCategorySchema, MAX_ORDER, updateCategorySchema } from "../fields";
import { CATEGORIES, type CategoryDoc, MENTIONS, type MentionDoc, orderSortKey } from "../store";
import { accessProject } from "./access";
import { commitChanges, numbered } from "./change-sequence";
import type { Caller, MentionDeps, ProjectRole } from "./deps";
import { parseFields, required } from "./input";
import { uncategorize } from "./mentions";

// Categories: how a project's people sort mentions (Lead, Complaint, …). Deleting one never deletes a
// mention: its mentions become uncategorized in the same commit as the delete, or, when there are many, in
// commits of at most DELETE_BATCH before the one that deletes the category, so a crash midway leaves the
// category there to delete again.

/** Mentions uncategorized per commit when a category is deleted. */
export const DELETE_BATCH = 500;

/** A category the caller may act on with `minimum`, refused as not_found "Category" otherwise. */
const loadCategory = async (deps: MentionDeps, caller: Caller, categoryId: string, minimum: ProjectRole): Promise<CategoryDoc> => {
  const category = categoryId ? await deps.collections.categories.findById(categoryId) : null;
  if (!category) throw notFound("Category");
  await accessProject(deps, caller, category.projectId, minimum, "Category");
  return category;
};

/** The position after the project's last category (lists order by `sortKey`, which starts with the order). */
const nextOrder = async (deps: MentionDeps, projectId: string): Promise<number> => {
  const [last] = await deps.collections.categories.find({ projectId }, { sort: { sortKey: -1 }, limit: 1 });
  return last ? Math.min(last.order + 1, MAX_ORDER) : 0;
};

export interface CategoryInput {
  projectId: string;
  name: string;
  description?: string;
  icon?: string;
  order?: number;
}

export const createCategory = async (deps: MentionDeps, caller: Caller, input: CategoryInput, effectKey?: string): Promise<CategoryDoc> => {
  const { projectId, ...fields } = input;
  const parsed = parseFields(createCategorySchema, fields, required(projectId, "projectId"));
  const access = await accessProject(deps, caller, projectId, "editor");
  return runOnce(
    deps.outbox,
    effectKey,
    (effect) => loadCategory(deps, caller, effect.resourceId, "viewer"),
    async () => {
      const now = deps.clock.now();
      const id = newId("cat", now.getTime());
      const order = parsed.order ?? (await nextOrder(deps, projectId));
      const category: CategoryDoc = {
        _id: id,
        projectId,
        workspaceId: access.workspaceId,
        name: parsed.name,
        description: parsed.description ?? "",
        icon: parsed.icon ?? "",
        order,
        sortKey: orderSortKey(order, id),
        createdAt: now,
        updatedAt: now,
        _v: 1,
      };
      await deps.outbox.commit([{ kind: "insert", collection: CATEGORIES, doc: category }], [], effectKey ? { key: effectKey, resourceId: id } : undefined);
      return category;
    },
  );
};

export const getCategory = (deps: MentionDeps, caller: Caller, categoryId: string): Promise<CategoryDoc> => loadCategory(deps, caller, categoryId, "viewer");

/** A project's categories by order, then creation. */
export const listCategories = async (
  deps: MentionDeps,
  caller: Caller,
  input: { projectId: string; limit?: number; cursor?: string },
): Promise<Page<CategoryDoc>> => {
  const errors = required(input.projectId, "projectId");
  if (errors.length > 0) throw validationFailed(errors);
  const limit = pageLimit(input.limit);
  await accessProject(deps, caller, input.projectId, "viewer");
  return withCursorErrors(() => deps.collections.categories.findPage({ projectId: input.projectId }, { limit, cursor: input.cursor ?? null, sortField: "sortKey" }));
};

export type CategoryUpdate = Partial<Omit<CategoryInput, "projectId">>;

/** Changes any of name, description, icon and order; unchanged input changes nothing. */
export const updateCategory = (deps: MentionDeps, caller: Caller, categoryId: string, update: CategoryUpdate): Promise<CategoryDoc> =>
  withVersionRetry(async () => {
    const parsed = parseFields(updateCategorySchema, update);
    const category = await loadCategory(deps, caller, categoryId, "editor");
    const next: CategoryDoc = { ...category };
    if (parsed.name !== undefined) next.name = parsed.name;
    if (parsed.description !== undefined) next.description = parsed.description;
    if (parsed.icon !== undefined) next.icon = parsed.icon;
    if (parsed.order !== undefined) {
      next.order = parsed.order;
      next.sortKey = orderSortKey(parsed.order, category._id);
    }
    const changed = (["name", "description", "icon", "order"] as const).some((f) => next[f] !== category[f]);
    if (!changed) return category;
    next.updatedAt = deps.clock.now();
    next._v = (category._v ?? 1) + 1;
    await deps.outbox.commit([{ kind: "replace", collection: CATEGORIES, doc: next, expectedVersion: category._v ?? 1 }], []);
    return next;
  });

const uncategorized = (deps: MentionDeps, m: MentionDoc, seq: number): Write => {
  const doc: MentionDoc = numbered({ ...m, categoryId: undefined, updatedAt: deps.clock.now(), _v: (m._v ?? 1) + 1 }, seq);
  return { kind: "replace", collection: MENTIONS, doc, expectedVersion: m._v ?? 1 };
};

const categorized = (deps: MentionDeps, categoryId: string) => deps.collections.mentions.find({ categoryId }, { limit: DELETE_BATCH });

/**
 * Deletes a category; its mentions become uncategorized (no `mention.updated` for them: the change is the
 * category's deletion). A triage racing the sweep just makes the batch run again. A categorization that
 * read the category before the delete and commits after the sweep is caught by the sweep that follows the
 * delete, or takes itself back (see categorizeMention).
 */
export const deleteCategory = async (deps: MentionDeps, caller: Caller, categoryId: string): Promise<CategoryDoc> => {
  const category = await loadCategory(deps, caller, categoryId, "editor");
  for (;;) {
    const done = await withVersionRetry(async () => {
      const batch = await categorized(deps, categoryId);
      const last = batch.length < DELETE_BATCH;
      // Each uncategorized mention is a change of the feed, numbered in the category's project.
      await commitChanges(deps, new Map([[category.projectId, batch.length]]), (first) => {
        const start = first.get(category.projectId) ?? 0;
        const writes = batch.map((m, i) => uncategorized(deps, m, start + i));
        if (last) writes.push({ kind: "delete", collection: CATEGORIES, id: categoryId });
        return { writes, events: [] };
      });
      return last;
    });
    if (done) break;
  }
  for (const straggler of await deps.collections.mentions.find({ categoryId })) await uncategorize(deps, straggler._id, categoryId);
  return category;
};
