import {
  checkFields,
  notFound,
  type Page,
  pageLimit,
  validationFailed,
  withCursorErrors,
  withVersionRetry,
} from "@earshot/platform/core";
import { collapseFilter, collapseOf } from "./stories/collapse";
import { withStorySizes } from "./stories/story-sizes";
import { z } from "zod";
import { MENTION_SORTS, mentionFields, type MentionSort, type MentionStatus } from "../fields";
import { MENTIONS, type MentionDoc, type TriageChangeDoc } from "../store";
import { mentionUpdatedEvent } from "../events";
import { accessProject, type ProjectAccess } from "./access";
import { commitChanges, numbered } from "./change-sequence";
import type { Caller, MentionDeps, ProjectRole } from "./deps";
import { checkFilters, loadViewFilters, mentionQuery, mergeFilters } from "./filters";
import { required } from "./input";
import { findRelevancePage } from "./relevance-order";

// Reading and triaging mentions. Every verb loads the mention first and checks the caller against the
// mention's own project, so a mention of a project the caller is not in is as missing as one that never
// existed. Triage is a versioned replace of the mention with its `mention.updated` event in one commit,
// run again when another change got there first.

/** What a mention keeps of its triage history: the last changes, enough to tell who did what lately. */
export const MAX_HISTORY = 100;

/** A mention as lists show it: everything but the triage history. */
export type MentionSummary = Omit<MentionDoc, "history">;

/** A mention the caller may act on with `minimum`, refused as not_found "Mention" otherwise. */
export const loadMention = async (deps: MentionDeps, caller: Caller, mentionId: string, minimum: ProjectRole): Promise<{ mention: MentionDoc; access: ProjectAccess }> => {
  const mention = mentionId ? await deps.collections.mentions.findById(mentionId) : null;
  if (!mention) throw notFound("Mention");
  const access = await accessProject(deps, caller, mention.projectId, minimum, "Mention");
  return { mention, access };
};

export const getMention = async (deps: MentionDeps, caller: Caller, mentionId: string): Promise<MentionDoc> =>
  (await loadMention(deps, caller, mentionId, "viewer")).mention;

export const summaryOf = ({ history: _history, ...rest }: MentionDoc): MentionSummary => rest;

export interface MentionListInput {
  projectId: string;
  /** The list filters (`MentionFilterInput`), checked here. */
  filters?: unknown;
  viewId?: string;
  limit?: number;
  cursor?: string;
  /** newest (default) or relevance. */
  sort?: string;
  /** `story`: each story once, by its first mention (stories/collapse.ts). */
  collapse?: string;
}

const sortOf = (sort: string | undefined): MentionSort => {
  if (sort === undefined || sort === "") return "newest";
  if ((MENTION_SORTS as readonly string[]).includes(sort)) return sort as MentionSort;
  throw validationFailed([{ path: "sort", message: `must be one of ${MENTION_SORTS.join(", ")}` }]);
};

/**
 * A project's mentions, newest first by publishedAt (ties by id), or with sort=relevance highest score
 * first (domain/relevance-order.ts); a cursor stays right while mentions arrive.
 */
export const listMentions = async (deps: MentionDeps, caller: Caller, input: MentionListInput): Promise<Page<MentionSummary>> => {
  const errors = required(input.projectId, "projectId");
  if (errors.length > 0) throw validationFailed(errors);
  const limit = pageLimit(input.limit);
  const filters = checkFilters(input.filters);
  const sort = sortOf(input.sort);
  const collapse = collapseOf(input.collapse);
  await accessProject(deps, caller, input.projectId, "viewer");
  const view = await loadViewFilters(deps, input.projectId, input.viewId);
  const query = { ...mentionQuery(input.projectId, mergeFilters(view, filters)), ...collapseFilter(collapse) };
  const cursor = input.cursor || null;
  const page = await withCursorErrors(() =>
    sort === "relevance"
      ? findRelevancePage(deps.collections.mentions, query, limit, cursor)
      : deps.collections.mentions.findPage(query, { limit, cursor, sortField: "publishedAt", direction: -1 }),
  );
  return { items: await withStorySizes(deps, page.items.map(summaryOf)), nextCursor: page.nextCursor };
};

type TriageField = TriageChangeDoc["field"];

/** The mention after one triage change, its history entry appended (oldest first, the last MAX_HISTORY kept). */
const withChange = (deps: MentionDeps, mention: MentionDoc, field: TriageField, to: string, byUserId: string): MentionDoc => {
  const now = deps.clock.now();
  const from = field === "status" ? mention.status : (mention.categoryId ?? "");
  const next: MentionDoc = { ...mention, updatedAt: now, _v: (mention._v ?? 1) + 1 };
  if (field === "status") next.status = to as MentionStatus;
  else next.categoryId = to === "" ? undefined : to;
  next.history = [...mention.history, { field, from, to, byUserId, at: now }].slice(-MAX_HISTORY);
  return next;
};

/** The change committed, numbered in the project's change sequence; returns the mention as stored. */
const commitChange = async (deps: MentionDeps, before: MentionDoc, after: MentionDoc, field: TriageField, byUserId: string): Promise<MentionDoc> => {
  let stored = after;
  // The event presents the story's size as read now; the stored document never holds it.
  const [{ storySize }] = (await withStorySizes(deps, [after])) as [MentionDoc];
  await commitChanges(deps, new Map([[after.projectId, 1]]), (first) => {
    stored = numbered(after, first.get(after.projectId)!);
    return {
      writes: [{ kind: "replace", collection: MENTIONS, doc: stored, expectedVersion: before._v ?? 1 }],
      events: [mentionUpdatedEvent({ ...stored, storySize }, [field], byUserId)],
    };
  });
  return stored;
};

const statusSchema = z.object({ status: mentionFields.status });

/** Sets open, done or follow_up; setting the status a mention already has records nothing. */
export const updateMentionStatus = (deps: MentionDeps, caller: Caller, mentionId: string, status: string): Promise<MentionDoc> =>
  withVersionRetry(async () => {
    const errors = checkFields(statusSchema, { status });
    if (errors.length > 0) throw validationFailed(errors);
    const { mention } = await loadMention(deps, caller, mentionId, "editor");
    if (mention.status === status) return mention;
    return commitChange(deps, mention, withChange(deps, mention, "status", status, caller.userId), "status", caller.userId);
  });

const categorySchema = z.object({ categoryId: mentionFields.categoryId });

const notACategory = () => validationFailed([{ path: "categoryId", message: "is not a category of this mention's project" }]);

/** Removes `categoryId` from a mention that still holds it, as deleting that category does (no history, no event). */
export const uncategorize = async (deps: MentionDeps, mentionId: string, categoryId: string): Promise<void> => {
  await withVersionRetry(async () => {
    const mention = await deps.collections.mentions.findById(mentionId);
    if (!mention || mention.categoryId !== categoryId) return;
    const next: MentionDoc = { ...mention, categoryId: undefined, updatedAt: deps.clock.now(), _v: (mention._v ?? 1) + 1 };
    await commitChanges(deps, new Map([[mention.projectId, 1]]), (first) => ({
      writes: [{ kind: "replace", collection: MENTIONS, doc: numbered(next, first.get(mention.projectId)!), expectedVersion: mention._v ?? 1 }],
      events: [],
    }));
  });
};

/**
 * Puts a mention in a category of its project, or clears it (null or empty). A categorization that lands
 * while the category is being deleted is taken back: the delete may already have swept past the mention.
 */
export const categorizeMention = async (deps: MentionDeps, caller: Caller, mentionId: string, categoryId: string | null): Promise<MentionDoc> => {
  const target = categoryId === "" ? null : categoryId;
  const errors = checkFields(categorySchema, { categoryId: target });
  if (errors.length > 0) throw validationFailed(errors);
  const next = await withVersionRetry(async () => {
    const { mention } = await loadMention(deps, caller, mentionId, "editor");
    if (target !== null) {
      const category = await deps.collections.categories.findById(target);
      if (!category || category.projectId !== mention.projectId) throw notACategory();
    }
    if ((mention.categoryId ?? null) === target) return mention;
    return commitChange(deps, mention, withChange(deps, mention, "categoryId", target ?? "", caller.userId), "categoryId", caller.userId);
  });
  if (target !== null && !(await deps.collections.categories.findById(target))) {
    await uncategorize(deps, mentionId, target);
    throw notACategory();
  }
  return next;
};
