import {
  checkFields,
  conflict,
  newId,
  notFound,
  type Page,
  pageLimit,
  usageLimited,
  validationFailed,
  withCursorErrors,
  withVersionRetry,
  type Write,
} from "@earshot/platform/core";
import { groupEvent, keywordEvent } from "../events";
import type { GroupView } from "../resource-messages";
import { createKeywordGroupSchema, updateKeywordGroupSchema } from "../fields";
import { groupSortKey, KEYWORD_GROUPS, KEYWORDS, type KeywordDoc, type KeywordGroupDoc } from "../store";
import { accessProject } from "./access";
import { ensureDefaultGroups } from "./default-groups";
import type { Caller, KeywordDeps } from "./deps";

// Keyword groups: the fixed My brand and Competitors, and custom groups people add, rename, reorder and
// delete once no active keyword is in them. A project holds at most as many groups as the workspace may
// have keywords (defaults included).

export type { GroupView } from "../resource-messages";

const withCounts = async (deps: KeywordDeps, group: KeywordGroupDoc): Promise<GroupView> => {
  const [keywordCount, inactiveKeywordCount] = await Promise.all([
    deps.collections.keywords.count({ groupId: group._id, active: true }),
    deps.collections.keywords.count({ groupId: group._id, active: false }),
  ]);
  return { group, keywordCount, inactiveKeywordCount };
};

/** A group the caller may act on with `minimum`, refused as not_found "Keyword group" otherwise. */
const loadGroup = async (deps: KeywordDeps, caller: Caller, groupId: string, minimum: "viewer" | "editor") => {
  const group = await deps.collections.groups.findById(groupId);
  if (!group) throw notFound("Keyword group");
  const access = await accessProject(deps, caller, group.projectId, minimum, "Keyword group");
  return { group, access };
};

const fixed = (group: KeywordGroupDoc) =>
  conflict(`${group.name} is a default group: its name and order are fixed and it cannot be deleted.`, { groupId: group._id });

export const createKeywordGroup = async (
  deps: KeywordDeps,
  caller: Caller,
  input: { projectId: string; name: string },
  effectKey?: string,
): Promise<GroupView> => {
  const errors = checkFields(createKeywordGroupSchema, { name: input.name });
  if (errors.length > 0) throw validationFailed(errors);
  const access = await accessProject(deps, caller, input.projectId, "editor");
  await ensureDefaultGroups(deps, access);
  return deps.guard.runOnce(
    access.workspaceId,
    effectKey,
    async (effect) => withCounts(deps, (await loadGroup(deps, caller, effect.resourceId, "viewer")).group),
    async (commit) => {
      const groups = await deps.collections.groups.find({ projectId: input.projectId });
      const allowance = caller.allowances.keywords;
      if (groups.length >= allowance) throw usageLimited("keyword_groups", allowance);
      const now = deps.clock.now();
      const id = newId("kwg", now.getTime());
      const order = Math.max(-1, ...groups.map((g) => g.order)) + 1;
      const group: KeywordGroupDoc = {
        _id: id,
        projectId: input.projectId,
        workspaceId: access.workspaceId,
        name: input.name.trim(),
        order,
        sortKey: groupSortKey(order, id),
        kind: "custom",
        createdAt: now,
        updatedAt: now,
        _v: 1,
      };
      const view = { group, keywordCount: 0, inactiveKeywordCount: 0 };
      await commit([{ kind: "insert", collection: KEYWORD_GROUPS, doc: group }], [groupEvent("keyword_group.created", view)], effectKey ? { key: effectKey, resourceId: id } : undefined);
      return view;
    },
  );
};

export const updateKeywordGroup = (deps: KeywordDeps, caller: Caller, groupId: string, update: { name?: string; order?: number }): Promise<GroupView> =>
  withVersionRetry(async () => {
    const errors = checkFields(updateKeywordGroupSchema, update);
    if (errors.length > 0) throw validationFailed(errors);
    const { group } = await loadGroup(deps, caller, groupId, "editor");
    if (group.kind !== "custom") throw fixed(group);
    const changed: string[] = [];
    const next: KeywordGroupDoc = { ...group, updatedAt: deps.clock.now(), _v: (group._v ?? 1) + 1 };
    if (update.name !== undefined && update.name.trim() !== group.name) {
      next.name = update.name.trim();
      changed.push("name");
    }
    if (update.order !== undefined && update.order !== group.order) {
      next.order = update.order;
      next.sortKey = groupSortKey(update.order, group._id);
      changed.push("order");
    }
    if (changed.length === 0) return withCounts(deps, group);
    // The event carries the group as the answer presents it, its counts read before the commit.
    const view = await withCounts(deps, next);
    await deps.outbox.commit(
      [{ kind: "replace", collection: KEYWORD_GROUPS, doc: next, expectedVersion: group._v ?? 1 }],
      [groupEvent("keyword_group.updated", view, changed)],
    );
    return view;
  });

/** Inactive keywords moved to My brand per commit when their group is deleted: bounded transactions. */
const MOVE_BATCH = 200;

/**
 * Deletes a custom group holding no active keyword. Its inactive keywords (kept for their history) move to
 * My brand, in bounded commits, the group's delete in the last, so a group that once had many keywords can
 * still be deleted. Keyword writes of the workspace go through the workspace guard, so no keyword lands in
 * the group between a round's check and its commit.
 */
export const deleteKeywordGroup = async (deps: KeywordDeps, caller: Caller, groupId: string): Promise<GroupView> => {
  const { group, access } = await loadGroup(deps, caller, groupId, "editor");
  if (group.kind !== "custom") throw fixed(group);
  const myBrand = (await ensureDefaultGroups(deps, access)).find((g) => g.kind === "my_brand") as KeywordGroupDoc;
  for (;;) {
    const deleted = await deps.guard.run(access.workspaceId, async (commit): Promise<GroupView | undefined> => {
      const current = await deps.collections.groups.findById(groupId);
      if (!current) throw notFound("Keyword group");
      const active = await deps.collections.keywords.count({ groupId, active: true });
      if (active > 0) throw conflict(`The group holds ${active} active keyword${active === 1 ? "" : "s"}; move or delete them first.`, { groupId, activeKeywords: active });
      const inactive = await deps.collections.keywords.find({ groupId, active: false }, { limit: MOVE_BATCH });
      const now = deps.clock.now();
      const moved: KeywordDoc[] = inactive.map((k) => ({ ...k, groupId: myBrand._id, updatedAt: now, _v: (k._v ?? 1) + 1 }));
      const writes: Write[] = moved.map((k, i) => ({ kind: "replace" as const, collection: KEYWORDS, doc: k, expectedVersion: inactive[i]?._v ?? 1 }));
      const events = moved.map((k) => keywordEvent("keyword.updated", k, ["groupId"]));
      if (inactive.length === MOVE_BATCH) {
        await commit(writes, events);
        return undefined;
      }
      // Its inactive keywords moved to My brand: the group as the delete answers it holds none.
      const view = { group: current, keywordCount: 0, inactiveKeywordCount: 0 };
      await commit([...writes, { kind: "delete", collection: KEYWORD_GROUPS, id: groupId }], [...events, groupEvent("keyword_group.deleted", view)]);
      return view;
    });
    if (deleted) return deleted;
  }
};

export const listKeywordGroups = async (
  deps: KeywordDeps,
  caller: Caller,
  input: { projectId: string; limit?: number; cursor?: string },
): Promise<{ groups: GroupView[]; nextCursor: string | null }> => {
  const limit = pageLimit(input.limit);
  const access = await accessProject(deps, caller, input.projectId, "viewer");
  await ensureDefaultGroups(deps, access);
  const page: Page<KeywordGroupDoc> = await withCursorErrors(() =>
    deps.collections.groups.findPage({ projectId: input.projectId }, { limit, cursor: input.cursor ?? null, sortField: "sortKey" }),
  );
  // Active keywords of a project are few (the allowance bounds them): one read, tallied per group.
  const active = new Map<string, number>();
  for (const k of await deps.collections.keywords.find({ projectId: input.projectId, active: true })) active.set(k.groupId, (active.get(k.groupId) ?? 0) + 1);
  const groups = await Promise.all(
    page.items.map(async (group) => ({
      group,
      keywordCount: active.get(group._id) ?? 0,
      inactiveKeywordCount: await deps.collections.keywords.count({ groupId: group._id, active: false }),
    })),
  );
  return { groups, nextCursor: page.nextCursor };
};
