import { newId, notFound, type Page, pageLimit, runOnce, validationFailed, withCursorErrors, withVersionRetry } from "@earshot/platform/core";
import { createViewSchema, MAX_ORDER, type MentionFilterInput, updateViewSchema } from "../fields";
import { MENTION_VIEWS, type MentionViewDoc, orderSortKey } from "../store";
import { accessProject } from "./access";
import { storedView } from "./filters";
import type { Caller, MentionDeps, ProjectRole } from "./deps";
import { parseFields, required } from "./input";

// Saved views: named list_mentions filters a project's people reopen. Their filters are checked with the
// same schema as a list request's, so a view always applies cleanly.

/** A view the caller may act on with `minimum`, refused as not_found "Mention view" otherwise. */
const loadView = async (deps: MentionDeps, caller: Caller, viewId: string, minimum: ProjectRole): Promise<MentionViewDoc> => {
  const view = viewId ? await deps.collections.views.findById(viewId) : null;
  if (!view) throw notFound("Mention view");
  await accessProject(deps, caller, view.projectId, minimum, "Mention view");
  return storedView(view);
};

const nextOrder = async (deps: MentionDeps, projectId: string): Promise<number> => {
  const [last] = await deps.collections.views.find({ projectId }, { sort: { sortKey: -1 }, limit: 1 });
  return last ? Math.min(last.order + 1, MAX_ORDER) : 0;
};

export interface ViewInput {
  projectId: string;
  name: string;
  filters: unknown;
  order?: number;
}

export const createMentionView = async (deps: MentionDeps, caller: Caller, input: ViewInput, effectKey?: string): Promise<MentionViewDoc> => {
  const { projectId, ...fields } = input;
  const parsed = parseFields(createViewSchema, fields, required(projectId, "projectId"));
  const access = await accessProject(deps, caller, projectId, "editor");
  return runOnce(
    deps.outbox,
    effectKey,
    (effect) => loadView(deps, caller, effect.resourceId, "viewer"),
    async () => {
      const now = deps.clock.now();
      const id = newId("view", now.getTime());
      const order = parsed.order ?? (await nextOrder(deps, projectId));
      const view: MentionViewDoc = {
        _id: id,
        projectId,
        workspaceId: access.workspaceId,
        name: parsed.name,
        filters: parsed.filters,
        order,
        sortKey: orderSortKey(order, id),
        createdAt: now,
        updatedAt: now,
        _v: 1,
      };
      await deps.outbox.commit([{ kind: "insert", collection: MENTION_VIEWS, doc: view }], [], effectKey ? { key: effectKey, resourceId: id } : undefined);
      return view;
    },
  );
};

export const getMentionView = (deps: MentionDeps, caller: Caller, viewId: string): Promise<MentionViewDoc> => loadView(deps, caller, viewId, "viewer");

/** A project's views by order, then creation. */
export const listMentionViews = async (
  deps: MentionDeps,
  caller: Caller,
  input: { projectId: string; limit?: number; cursor?: string },
): Promise<Page<MentionViewDoc>> => {
  const errors = required(input.projectId, "projectId");
  if (errors.length > 0) throw validationFailed(errors);
  const limit = pageLimit(input.limit);
  await accessProject(deps, caller, input.projectId, "viewer");
  const page = await withCursorErrors(() => deps.collections.views.findPage({ projectId: input.projectId }, { limit, cursor: input.cursor ?? null, sortField: "sortKey" }));
  return { ...page, items: page.items.map(storedView) };
};

export interface ViewUpdate {
  name?: string;
  filters?: unknown;
  order?: number;
}

const sameFilters = (a: MentionFilterInput, b: MentionFilterInput) => JSON.stringify(a) === JSON.stringify(b);

/** Changes any of name, filters (replaced whole) and order; unchanged input changes nothing. */
export const updateMentionView = (deps: MentionDeps, caller: Caller, viewId: string, update: ViewUpdate): Promise<MentionViewDoc> =>
  withVersionRetry(async () => {
    const parsed = parseFields(updateViewSchema, update);
    const view = await loadView(deps, caller, viewId, "editor");
    const next: MentionViewDoc = { ...view };
    if (parsed.name !== undefined) next.name = parsed.name;
    if (parsed.filters !== undefined) next.filters = parsed.filters;
    if (parsed.order !== undefined) {
      next.order = parsed.order;
      next.sortKey = orderSortKey(parsed.order, view._id);
    }
    if (next.name === view.name && next.order === view.order && sameFilters(next.filters, view.filters)) return view;
    next.updatedAt = deps.clock.now();
    next._v = (view._v ?? 1) + 1;
    await deps.outbox.commit([{ kind: "replace", collection: MENTION_VIEWS, doc: next, expectedVersion: view._v ?? 1 }], []);
    return next;
  });

export const deleteMentionView = async (deps: MentionDeps, caller: Caller, viewId: string): Promise<MentionViewDoc> => {
  const view = await loadView(deps, caller, viewId, "editor");
  await deps.outbox.commit([{ kind: "delete", collection: MENTION_VIEWS, id: viewId }], []);
  return view;
};
