import { type FieldError, type Filter, validationFailed, zodFieldErrors } from "@earshot/platform/core";
import { type MentionFilterInput, mentionFiltersSchema, UNCATEGORIZED, UNSCORED_RELEVANCE } from "../fields";
import type { MentionViewDoc } from "../store";
import type { MentionDeps } from "./deps";
import { authorKeyOf, queryWords } from "./words";

// The one place a mention read (list, export, analytics) turns what it was asked into a store query, so
// the three always select the same mentions. `projectId` comes first as an equality: the store walks the
// (projectId, publishedAt) index in order and tests the other members on the way, so a page costs the
// same however many mentions the project holds.

/** Checks filters with the shared schema, naming bad members under `prefix` (`filters.status.0`). */
export const checkFilters = (filters: unknown, prefix = ""): MentionFilterInput => {
  const parsed = mentionFiltersSchema.safeParse(filters ?? {});
  if (parsed.success) return parsed.data;
  const errors: FieldError[] = zodFieldErrors(parsed.error.issues, prefix || "filters").map((e) => ({
    path: prefix && e.path !== prefix ? `${prefix}.${e.path}` : e.path,
    message: e.message,
  }));
  throw validationFailed(errors);
};

/** Members set in `explicit` replace the view's; an empty list or absent member leaves the view's. */
export const mergeFilters = (view: MentionFilterInput, explicit: MentionFilterInput): MentionFilterInput => {
  const out: Record<string, unknown> = { ...view };
  for (const [key, value] of Object.entries(explicit)) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    out[key] = value;
  }
  return out as MentionFilterInput;
};

/** The saved view a read applies: a view of the same project, else 400 naming `viewId`. */
export const loadViewFilters = async (deps: MentionDeps, projectId: string, viewId: string | undefined): Promise<MentionFilterInput> => {
  if (viewId === undefined) return {};
  const view: MentionViewDoc | null = viewId ? await deps.collections.views.findById(viewId) : null;
  if (!view || view.projectId !== projectId) throw validationFailed([{ path: "viewId", message: "is not a saved view of this project" }]);
  return storedView(view).filters;
};

/** A saved view as read from the store: one saved before author became a list holds a single author. */
export const storedView = (view: MentionViewDoc): MentionViewDoc => {
  const author: unknown = view.filters.author;
  return typeof author === "string" ? { ...view, filters: { ...view.filters, author: [author] } } : view;
};

const anyOf = (field: string, values: readonly string[]): Filter => (values.length === 1 ? { [field]: values[0] } : { [field]: { $in: [...values] } });

// A mention stored before scoring existed has no relevance; it counts as uncertain with score 0.5, so a
// bound at or under 0.5 keeps it and the label filter keeps it under "uncertain". `$exists: false` matches
// a missing field the same way on both adapters.
const UNSCORED: Filter = { "relevance.score": { $exists: false } };

/** The relevance members of `f` as store conditions (none when neither is set). */
export const relevanceQuery = (f: MentionFilterInput): Filter[] => {
  const out: Filter[] = [];
  if (f.minRelevance !== undefined) {
    const scored: Filter = { "relevance.score": { $gte: f.minRelevance } };
    out.push(f.minRelevance <= UNSCORED_RELEVANCE.score ? { $or: [scored, UNSCORED] } : scored);
  }
  if (f.relevance?.length) {
    const labelled = anyOf("relevance.label", f.relevance);
    out.push(f.relevance.includes(UNSCORED_RELEVANCE.label) ? { $or: [labelled, { "relevance.label": { $exists: false } }] } : labelled);
  }
  return out;
};

/**
 * The store filter for a project's mentions matching `f`: lists are OR within a member, members AND.
 * `extra` adds the read's own bounds (export's snapshot time).
 */
export const mentionQuery = (projectId: string, f: MentionFilterInput, extra: Filter = {}): Filter => {
  const query: Filter = { projectId };
  const and: Filter[] = [];
  if (f.status?.length) Object.assign(query, anyOf("status", f.status));
  if (f.source?.length) Object.assign(query, anyOf("source", f.source));
  if (f.sentiment?.length) Object.assign(query, anyOf("sentiment.label", f.sentiment));
  // An array field matches when any element does, on both adapters.
  if (f.keywordId?.length) Object.assign(query, anyOf("keywordIds", f.keywordId));
  if (f.groupId?.length) and.push(anyOf("groupIds", f.groupId));
  if (f.categoryId?.length) {
    const ids = f.categoryId.filter((c) => c !== UNCATEGORIZED);
    const none = ids.length < f.categoryId.length;
    const uncategorized: Filter = { categoryId: { $exists: false } };
    if (none && ids.length === 0) and.push(uncategorized);
    else if (none) and.push({ $or: [uncategorized, anyOf("categoryId", ids)] });
    else and.push(anyOf("categoryId", ids));
  }
  if (f.q !== undefined) {
    const words = queryWords(f.q);
    // Nothing left to look for once folded (only punctuation): such a q matches nothing.
    if (words.length === 0) and.push({ _id: { $in: [] } });
    for (const w of words) and.push({ words: w });
  }
  if (f.author?.length) {
    and.push({ $or: [anyOf("authorKey", f.author.map(authorKeyOf)), anyOf("author.id", f.author.map((a) => a.trim()))] });
  }
  and.push(...relevanceQuery(f));
  const published: Record<string, Date> = {};
  if (f.since !== undefined) published.$gte = new Date(f.since);
  if (f.until !== undefined) published.$lt = new Date(f.until);
  if (Object.keys(published).length > 0) query.publishedAt = published;
  for (const [key, value] of Object.entries(extra)) query[key] = value;
  if (and.length > 0) query.$and = and;
  return query;
};
