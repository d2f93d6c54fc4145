import { pageLimit, validationFailed, withCursorErrors } from "@earshot/platform/core";
import { accessProject } from "./access";
import type { Caller, MentionDeps } from "./deps";
import { checkFilters, loadViewFilters, mentionQuery, mergeFilters } from "./filters";
import { required } from "./input";
import { type MentionListInput, type MentionSummary, summaryOf } from "./mentions";
import { collapseFilter, collapseOf } from "./stories/collapse";

// Export: every mention matching the list filters, in pages the edge streams one after the other. The
// first page fixes a snapshot time (`asOf`); every later page reads only mentions matched by then, so a
// mention arriving during a long export is not in it, and since the order (publishedAt, then id) never
// changes under triage, one triaged meanwhile still appears exactly once. collapse=story exports each story
// once, by its first mention (its size is added where the page is presented, as for list_mentions).

export const EXPORT_PAGE_SIZE = 1000;

interface ExportPosition {
  /** The project the export reads, so a cursor cannot be replayed against another one. */
  projectId: string;
  asOf: Date;
  /** The store's cursor after the last mention sent. */
  after: string;
}

const badCursor = () => validationFailed([{ path: "cursor", message: "is not a cursor this export returned" }]);

const encodePosition = (p: ExportPosition): string =>
  Buffer.from(JSON.stringify({ p: p.projectId, t: p.asOf.toISOString(), a: p.after })).toString("base64url");

const decodePosition = (cursor: string, projectId: string): ExportPosition => {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw badCursor();
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw badCursor();
  const { p, t, a, ...rest } = raw as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof p !== "string" || typeof t !== "string" || typeof a !== "string" || a === "") throw badCursor();
  const asOf = new Date(t);
  if (Number.isNaN(asOf.getTime()) || asOf.toISOString() !== t || p !== projectId) throw badCursor();
  return { projectId: p, asOf, after: a };
};

export interface ExportPage {
  items: MentionSummary[];
  /** Null after the last page. */
  nextCursor: string | null;
  asOf: Date;
}

/** One page of an export: up to 1,000 mentions (fewer when `limit` says so), newest first. */
export const exportMentions = async (deps: MentionDeps, caller: Caller, input: MentionListInput): Promise<ExportPage> => {
  const errors = required(input.projectId, "projectId");
  if (errors.length > 0) throw validationFailed(errors);
  const limit = pageLimit(input.limit, EXPORT_PAGE_SIZE, EXPORT_PAGE_SIZE);
  const filters = checkFilters(input.filters);
  const collapse = collapseOf(input.collapse);
  const position = input.cursor ? decodePosition(input.cursor, input.projectId) : null;
  await accessProject(deps, caller, input.projectId, "viewer");
  const view = await loadViewFilters(deps, input.projectId, input.viewId);
  const asOf = position?.asOf ?? deps.clock.now();
  const query = { ...mentionQuery(input.projectId, mergeFilters(view, filters), { matchedAt: { $lte: asOf } }), ...collapseFilter(collapse) };
  const page = await withCursorErrors(() =>
    deps.collections.mentions.findPage(query, { limit, cursor: position?.after ?? null, sortField: "publishedAt", direction: -1 }),
  );
  return {
    items: page.items.map(summaryOf),
    nextCursor: page.nextCursor ? encodePosition({ projectId: input.projectId, asOf, after: page.nextCursor }) : null,
    asOf,
  };
};
