import { listOf, mentionFilterFields, mentionFiltersSchema, UNCATEGORIZED } from "@earshot/mention/fields";
import { z } from "zod";
import { idField, queryList } from "./schemas";

/** A number as a REST query carries it (text), left as it is otherwise so the schema names what is wrong. */
const queryNumber = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : v), schema);

// The list_mentions filters as request fields (list_mentions, export_mentions, get_mention_analytics). The
// members are @earshot/mention/fields' own; a list member is a queryList, so a REST query may repeat it or
// separate values with commas and MCP sends an array. The gRPC message is built by
// `@earshot/mention/filters`, the one the mention service reads it back with.

/**
 * The id filters as the API takes them: the field module's lists, each member an id of its kind's shape
 * (the mention service takes any text there; a name in an id's place would match nothing, silently).
 */
export const idFilterFields = {
  keywordId: listOf(idField("kw"), "keywords").describe(mentionFilterFields.keywordId.description ?? ""),
  groupId: listOf(idField("kwg"), "groups").describe(mentionFilterFields.groupId.description ?? ""),
  categoryId: listOf(idField("cat", { orWord: UNCATEGORIZED }), "categories").describe(mentionFilterFields.categoryId.description ?? ""),
};

/** The filters of a saved view's body: the mention service's, with the id filters above. */
export const mentionFiltersBody = mentionFiltersSchema.safeExtend({
  keywordId: idFilterFields.keywordId.optional(),
  groupId: idFilterFields.groupId.optional(),
  categoryId: idFilterFields.categoryId.optional(),
});

const listFilters = {
  status: queryList(mentionFilterFields.status).optional(),
  keywordId: queryList(idFilterFields.keywordId).optional(),
  groupId: queryList(idFilterFields.groupId).optional(),
  source: queryList(mentionFilterFields.source).optional(),
  categoryId: queryList(idFilterFields.categoryId).optional(),
  sentiment: queryList(mentionFilterFields.sentiment).optional(),
  q: mentionFilterFields.q.optional(),
  author: queryList(mentionFilterFields.author).optional(),
  minRelevance: queryNumber(mentionFilterFields.minRelevance).optional(),
  relevance: queryList(mentionFilterFields.relevance).optional(),
};

/** Every filter but the published-at bounds (analytics has its own period). */
export const mentionListFilterQuery = listFilters;

/** Every filter, the published-at bounds and a saved view included. */
export const mentionFilterQuery = {
  ...listFilters,
  since: mentionFilterFields.since.optional(),
  until: mentionFilterFields.until.optional(),
  viewId: idField("view")
    .optional()
    .describe("Applies a saved view of the project (its id, view_…); a filter given here replaces the view's member of the same name."),
};

/** until must come after since, when both are given (as in a saved view's filters). */
export const sinceBeforeUntil = (input: { since?: string | undefined; until?: string | undefined }, ctx: z.RefinementCtx): void => {
  if (input.since && input.until && Date.parse(input.since) >= Date.parse(input.until)) {
    ctx.addIssue({ code: "custom", message: "must be after since", path: ["until"] });
  }
};

export const listQuerySchema = <S extends z.ZodRawShape>(shape: S) => z.object(shape).superRefine(sinceBeforeUntil);

const FILTERS =
  "status (open, done, follow_up), keywordId, groupId, source (x, reddit, youtube, linkedin, hackernews, bluesky, rss, github), categoryId (\"none\" for uncategorized), " +
  "sentiment (positive, neutral, negative), q (words that must all appear in the title or text, case and accents ignored), " +
  "author (handles, with or without @, or author ids), minRelevance (a relevance score from 0 to 1: mentions scoring at least this), " +
  "relevance (relevant, uncertain, irrelevant: mentions with any of these labels; a mention stored before scoring counts as uncertain with score 0.5)";
const LISTS = "In a REST query a list is the parameter repeated or comma-separated (status=open,follow_up); in MCP a JSON array.";

/** The filters of list_mentions and export_mentions, as their descriptions state them. */
export const FILTERS_DOC =
  `Filters (each optional; a list matches any of its values, different filters must all match): ${FILTERS}, ` +
  `since and until (publishedAt; since inclusive, until exclusive). ${LISTS}`;

/** The filters get_mention_analytics takes (all but the period, which it has its own words for). */
export const LIST_FILTERS_DOC = `Filters (as list_mentions): ${FILTERS}. ${LISTS}`;
