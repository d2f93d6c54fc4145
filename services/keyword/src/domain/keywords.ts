import {
  checkFields,
  conflict,
  isUniqueViolation,
  newId,
  notFound,
  type Page,
  pageLimit,
  type FieldError,
  type Source,
  SOURCES,
  type StagedEvent,
  usageLimited,
  validationFailed,
  withCursorErrors,
} from "@earshot/platform/core";
import { keywordEvent } from "../events";
import { createKeywordSchema, type KeywordFilters, updateKeywordSchema } from "../fields";
import { KEYWORDS, type KeywordDoc, type KeywordGroupDoc } from "../store";
import { accessProject, type ProjectAccess } from "./access";
import { ensureDefaultGroups } from "./default-groups";
import type { Caller, KeywordDeps } from "./deps";
import { activeKeyOf, tidyFilters, tidyPhrase, tidyPhrases } from "./phrases";

// Keywords: what a project listens for. Every write that can add an active keyword (create, reactivate)
// or move one between groups runs under the workspace guard, so the workspace's keyword allowance and a
// group's emptiness (checked before a group is deleted) hold however many requests race. One active
// keyword per value and case rule in a project is kept by a unique index on `activeKey`.

export interface KeywordFields {
  value: string;
  sources: string[];
  aliases: string[];
  excludedTerms: string[];
  filters: KeywordFilters;
  caseSensitive: boolean;
  groupId?: string;
}

export interface KeywordUpdate extends Partial<KeywordFields> {
  active?: boolean;
}

const UPDATABLE = ["value", "sources", "aliases", "excludedTerms", "filters", "caseSensitive", "groupId"] as const;

const required = (projectId: string): FieldError[] => (projectId ? [] : [{ path: "projectId", message: "is required" }]);

/** A keyword the caller may act on with `minimum`, refused as not_found "Keyword" otherwise. */
const loadKeyword = async (deps: KeywordDeps, caller: Caller, keywordId: string, minimum: "viewer" | "editor") => {
  const keyword = await deps.collections.keywords.findById(keywordId);
  if (!keyword) throw notFound("Keyword");
  const access = await accessProject(deps, caller, keyword.projectId, minimum, "Keyword");
  return { keyword, access };
};

/** The group a keyword goes to: the named one, which must belong to the project, else My brand. */
const targetGroup = async (deps: KeywordDeps, access: ProjectAccess, groupId: string | undefined): Promise<KeywordGroupDoc> => {
  if (groupId === undefined) {
    return (await ensureDefaultGroups(deps, access)).find((g) => g.kind === "my_brand") as KeywordGroupDoc;
  }
  const group = await deps.collections.groups.findById(groupId);
  if (!group || group.projectId !== access.projectId) throw validationFailed([{ path: "groupId", message: "is not a keyword group of this project" }]);
  return group;
};

const duplicate = async (deps: KeywordDeps, activeKey: string, self?: string) => {
  const other = await deps.collections.keywords.findOne({ activeKey });
  return other && other._id !== self ? other : null;
};

const duplicateConflict = (other: Pick<KeywordDoc, "_id" | "value"> | null) =>
  conflict(`The project already tracks "${other?.value ?? "this value"}" with the same case rule.`, other ? { keywordId: other._id } : undefined);

/**
 * Refuses a project archived since the access check. Archival deactivates keywords under the same
 * workspace guard, so a write that passes this inside the guard commits before the archival's
 * deactivation reads, or meets a version conflict and checks again.
 */
const requireLiveProject = async (deps: KeywordDeps, projectId: string, what: string) => {
  const state = await deps.collections.projects.findById(projectId);
  if (state?.status === "archived") throw notFound(what);
};

const checkAllowance = async (deps: KeywordDeps, caller: Caller, workspaceId: string) => {
  const used = await deps.collections.keywords.count({ workspaceId, active: true });
  if (used >= caller.allowances.keywords) throw usageLimited("keywords", caller.allowances.keywords);
};

/** Commits a keyword write, answering a racing duplicate (the unique active key) as conflict. */
const commitKeyword = async (activeKey: string | undefined, deps: KeywordDeps, commit: () => Promise<void>) => {
  try {
    await commit();
  } catch (err) {
    if (isUniqueViolation(err) && err.collection === KEYWORDS) throw duplicateConflict(activeKey ? await deps.collections.keywords.findOne({ activeKey }) : null);
    throw err;
  }
};

export const createKeyword = async (
  deps: KeywordDeps,
  caller: Caller,
  input: KeywordFields & { projectId: string },
  effectKey?: string,
): Promise<KeywordDoc> => {
  const { projectId, ...fields } = input;
  const errors = [...required(projectId), ...checkFields(createKeywordSchema, fields)];
  if (errors.length > 0) throw validationFailed(errors);
  const access = await accessProject(deps, caller, projectId, "editor");
  await ensureDefaultGroups(deps, access);
  return deps.guard.runOnce(
    access.workspaceId,
    effectKey,
    async (effect) => (await loadKeyword(deps, caller, effect.resourceId, "viewer")).keyword,
    async (commit) => {
      await requireLiveProject(deps, projectId, "Project");
      const group = await targetGroup(deps, access, fields.groupId);
      const value = tidyPhrase(fields.value);
      const activeKey = activeKeyOf(projectId, value, fields.caseSensitive);
      const other = await duplicate(deps, activeKey);
      if (other) throw duplicateConflict(other);
      await checkAllowance(deps, caller, access.workspaceId);
      const now = deps.clock.now();
      const keyword: KeywordDoc = {
        _id: newId("kw", now.getTime()),
        projectId,
        workspaceId: access.workspaceId,
        groupId: group._id,
        value,
        sources: [...fields.sources] as Source[],
        aliases: tidyPhrases(fields.aliases),
        excludedTerms: tidyPhrases(fields.excludedTerms),
        filters: tidyFilters(fields.filters),
        caseSensitive: fields.caseSensitive,
        active: true,
        activeKey,
        createdAt: now,
        updatedAt: now,
        _v: 1,
      };
      await commitKeyword(activeKey, deps, () =>
        commit([{ kind: "insert", collection: KEYWORDS, doc: keyword }], [keywordEvent("keyword.created", keyword)], effectKey ? { key: effectKey, resourceId: keyword._id } : undefined),
      );
      return keyword;
    },
  );
};

export const getKeyword = async (deps: KeywordDeps, caller: Caller, keywordId: string): Promise<KeywordDoc> =>
  (await loadKeyword(deps, caller, keywordId, "viewer")).keyword;

const sameList = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The keyword after an update, and the names of the fields that changed. */
const applyUpdate = (current: KeywordDoc, update: KeywordUpdate, groupId: string): { next: KeywordDoc; changed: string[] } => {
  const next: KeywordDoc = { ...current };
  if (update.value !== undefined) next.value = tidyPhrase(update.value);
  if (update.sources !== undefined) next.sources = [...update.sources] as Source[];
  if (update.aliases !== undefined) next.aliases = tidyPhrases(update.aliases);
  if (update.excludedTerms !== undefined) next.excludedTerms = tidyPhrases(update.excludedTerms);
  if (update.filters !== undefined) next.filters = tidyFilters(update.filters);
  if (update.caseSensitive !== undefined) next.caseSensitive = update.caseSensitive;
  next.groupId = groupId;
  const changed: string[] = UPDATABLE.filter((f) => {
    const before = current[f];
    const after = next[f];
    if (Array.isArray(before) && Array.isArray(after)) return !sameList(before, after);
    if (f === "filters") return JSON.stringify(before) !== JSON.stringify(after);
    return before !== after;
  });
  if (update.active !== undefined && update.active !== current.active) {
    next.active = update.active;
    changed.push("active");
  }
  return { next, changed };
};

export const updateKeyword = async (deps: KeywordDeps, caller: Caller, keywordId: string, update: KeywordUpdate): Promise<KeywordDoc> => {
  const errors = checkFields(updateKeywordSchema, update);
  if (errors.length > 0) throw validationFailed(errors);
  const { access } = await loadKeyword(deps, caller, keywordId, "editor");
  return deps.guard.run(access.workspaceId, async (commit) => {
    // Read again under the guard: the version replaced is the one the checks saw.
    const current = await deps.collections.keywords.findById(keywordId);
    if (!current) throw notFound("Keyword");
    await requireLiveProject(deps, current.projectId, "Keyword");
    const group = update.groupId === undefined || update.groupId === current.groupId ? { _id: current.groupId } : await targetGroup(deps, access, update.groupId);
    const { next, changed } = applyUpdate(current, update, group._id);
    if (changed.length === 0) return current;
    const now = deps.clock.now();
    next.updatedAt = now;
    next._v = (current._v ?? 1) + 1;
    let event: StagedEvent;
    if (next.active) {
      next.activeKey = activeKeyOf(next.projectId, next.value, next.caseSensitive);
      next.deactivatedAt = undefined;
      next.deactivatedBy = undefined;
      const other = await duplicate(deps, next.activeKey, current._id);
      if (other) throw duplicateConflict(other);
      if (!current.active) await checkAllowance(deps, caller, access.workspaceId);
      event = keywordEvent("keyword.updated", next, changed);
    } else {
      next.activeKey = undefined;
      if (current.active) {
        next.deactivatedAt = now;
        next.deactivatedBy = "user";
      }
      event = keywordEvent(current.active ? "keyword.deactivated" : "keyword.updated", next, changed);
    }
    await commitKeyword(next.activeKey, deps, () => commit([{ kind: "replace", collection: KEYWORDS, doc: next, expectedVersion: current._v ?? 1 }], [event]));
    return next;
  });
};

/** delete_keyword: deactivates (history is kept); a keyword already inactive is answered as it is. */
export const deleteKeyword = (deps: KeywordDeps, caller: Caller, keywordId: string): Promise<KeywordDoc> =>
  updateKeyword(deps, caller, keywordId, { active: false });

export interface KeywordListInput {
  projectId: string;
  groupId?: string;
  active?: boolean;
  source?: string;
  limit?: number;
  cursor?: string;
}

/** A project's keywords, newest first (ids sort by creation time). */
export const listKeywords = async (deps: KeywordDeps, caller: Caller, input: KeywordListInput): Promise<Page<KeywordDoc>> => {
  const limit = pageLimit(input.limit);
  const errors = required(input.projectId);
  if (input.source !== undefined && !(SOURCES as readonly string[]).includes(input.source)) errors.push({ path: "source", message: "must be one of x, reddit, youtube, linkedin, hackernews, bluesky, rss, github" });
  if (errors.length > 0) throw validationFailed(errors);
  await accessProject(deps, caller, input.projectId, "viewer");
  const filter: Record<string, unknown> = { projectId: input.projectId };
  if (input.groupId !== undefined) filter.groupId = input.groupId;
  if (input.active !== undefined) filter.active = input.active;
  if (input.source !== undefined) filter.sources = input.source;
  return withCursorErrors(() => deps.collections.keywords.findPage(filter, { limit, cursor: input.cursor ?? null, direction: -1 }));
};

/** Active keywords of a workspace: what its keyword allowance counts. */
export const keywordsInUse = (deps: KeywordDeps, workspaceId: string): Promise<number> => deps.collections.keywords.count({ workspaceId, active: true });
