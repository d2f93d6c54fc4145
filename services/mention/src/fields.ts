import { RELEVANCE_LABELS, SENTIMENTS } from "@earshot/contracts/fields";
import { SOURCES, textField, type TextLimit } from "@earshot/platform/core";
import { z } from "zod";

// The fields of mentions, categories, saved views and the mention reads (API spec sections 2 and 4,
// DESIGN.md "Monitoring domain"), declared once: the edge builds its request schemas from them and the
// mention service checks what reaches it over gRPC with the same ones. Published as
// `@earshot/mention/fields`; imports nothing but zod and the platform.

import { MENTION_STATUSES } from "@earshot/contracts/fields";
export { MENTION_STATUSES, type MentionStatus } from "@earshot/contracts/fields";
export { SENTIMENTS, type SentimentLabel } from "@earshot/contracts/fields";
export { RELEVANCE_LABELS, type RelevanceLabel, UNSCORED_RELEVANCE } from "@earshot/contracts/fields";
export const ANALYTICS_INTERVALS = ["hour", "day", "week"] as const;
export const ANALYTICS_GROUP_BY = ["keyword", "group", "source", "sentiment", "status", "category"] as const;
export const EXPORT_FORMATS = ["ndjson", "csv"] as const;
/** list_mentions' orders: newest published first, or highest relevance score first (then newest). */
export const MENTION_SORTS = ["newest", "relevance"] as const;
export type MentionSort = (typeof MENTION_SORTS)[number];
/** How a mention read may fold mentions: `story` lists each story once (domain/stories/collapse.ts). */
export const MENTION_COLLAPSES = ["story"] as const;
/** The category filter's word for mentions without a category. */
export const UNCATEGORIZED = "none";

export const TEXT_LIMITS = {
  categoryName: { min: 1, max: 50 },
  categoryDescription: { max: 200 },
  categoryIcon: { max: 10 },
  viewName: { min: 1, max: 50 },
  q: { min: 1, max: 200 },
  author: { min: 1, max: 100 },
  id: { min: 1, max: 64, maxBytes: 64 },
  feedbackReason: { max: 500 },
} satisfies Record<string, TextLimit>;

export const MAX_ORDER = 1_000_000;
/** Values per list filter: enough for any real selection, bounded so a filter stays one indexed query. */
export const MAX_FILTER_VALUES = 50;
/** Analytics answers at most this many buckets (a year of days, two weeks of hours). */
export const MAX_BUCKETS = 400;

const unique = (values: readonly unknown[]): boolean => new Set(values).size === values.length;

/** A list of the mention filters: bounded, no value twice. Exported for the edge, which lists ids of a checked shape. */
export const listOf = <T extends z.ZodType>(item: T, what: string) =>
  z
    .array(item)
    .max(MAX_FILTER_VALUES, { message: `must hold at most ${MAX_FILTER_VALUES} ${what}` })
    .refine(unique, { message: `must not repeat ${what}` })
    .meta({ uniqueItems: true });

const id = () => textField(TEXT_LIMITS.id).describe("An id, at most 64 bytes of UTF-8.");
/** A relevance bound: a score is a fraction, so anything outside 0..1 is a mistake worth naming. */
export const minRelevance = () => z.number({ message: "must be a number from 0 to 1" }).min(0, { message: "must be from 0 to 1" }).max(1, { message: "must be from 0 to 1" });
const instant = () => z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time such as 2026-11-01T00:00:00Z" });

/** The filters of list_mentions, export_mentions and saved views: each list is OR, members are AND. */
export const mentionFilterFields = {
  status: listOf(z.enum(MENTION_STATUSES), "statuses").describe("open, done, follow_up (any of them)."),
  keywordId: listOf(id(), "keywords").describe("Mentions matching any of these keywords (kw_…)."),
  groupId: listOf(id(), "groups").describe("Mentions matching a keyword of any of these groups (kwg_…)."),
  source: listOf(z.enum(SOURCES), "sources").describe("x, reddit, youtube, linkedin, hackernews, bluesky, rss, github (any of them)."),
  categoryId: listOf(id(), "categories").describe(`Mentions in any of these categories (cat_…); "${UNCATEGORIZED}" means uncategorized.`),
  sentiment: listOf(z.enum(SENTIMENTS), "sentiments").describe("positive, neutral, negative (any of them)."),
  q: textField({ ...TEXT_LIMITS.q, trim: true }).describe("Words that must all appear in the text or title (case and accents ignored)."),
  author: listOf(textField({ ...TEXT_LIMITS.author, trim: true }), "authors").describe("Mentions by any of these authors: a handle (with or without @) or an author id each."),
  since: instant().describe("Published at or after this instant (ISO 8601)."),
  until: instant().describe("Published before this instant (ISO 8601); later than since when both are given."),
  minRelevance: minRelevance().describe(
    "Mentions whose relevance score is at least this (0 to 1); a mention stored before scoring counts as 0.5.",
  ),
  relevance: listOf(z.enum(RELEVANCE_LABELS), "labels").describe(
    "relevant, uncertain, irrelevant (any of them); a mention stored before scoring counts as uncertain.",
  ),
};

export const mentionFiltersSchema = z
  .object({
    status: mentionFilterFields.status.optional(),
    keywordId: mentionFilterFields.keywordId.optional(),
    groupId: mentionFilterFields.groupId.optional(),
    source: mentionFilterFields.source.optional(),
    categoryId: mentionFilterFields.categoryId.optional(),
    sentiment: mentionFilterFields.sentiment.optional(),
    q: mentionFilterFields.q.optional(),
    author: mentionFilterFields.author.optional(),
    since: mentionFilterFields.since.optional(),
    until: mentionFilterFields.until.optional(),
    minRelevance: mentionFilterFields.minRelevance.optional(),
    relevance: mentionFilterFields.relevance.optional(),
  })
  .strict()
  .refine((f) => !f.since || !f.until || Date.parse(f.since) < Date.parse(f.until), { message: "must be after since", path: ["until"] });

export type MentionFilterInput = z.infer<typeof mentionFiltersSchema>;

export const mentionFields = {
  status: z.enum(MENTION_STATUSES).describe("open, done or follow_up."),
  categoryId: id().nullable().describe("A category of the mention's project (cat_…, at most 64 bytes of UTF-8), or null to clear it."),
};

export const categoryFields = {
  name: textField({ ...TEXT_LIMITS.categoryName, trim: true }).describe("1 to 50 characters."),
  description: textField(TEXT_LIMITS.categoryDescription).describe("At most 200 characters."),
  icon: textField(TEXT_LIMITS.categoryIcon).describe("At most 10 characters, e.g. an emoji."),
  order: z.number().int().min(0).max(MAX_ORDER).describe("Position in the project's list (ascending); ties keep creation order."),
};

export const viewFields = {
  name: textField({ ...TEXT_LIMITS.viewName, trim: true }).describe("1 to 50 characters."),
  filters: mentionFiltersSchema.describe("The list_mentions filters the view applies."),
  order: categoryFields.order,
};

// A create publishes what it fills in for a field left out (its default); an update leaves such a field alone.
const AFTER_THE_LAST = "; default: after the project's last one";
export const createCategorySchema = z
  .object({
    name: categoryFields.name,
    description: categoryFields.description.default(""),
    icon: categoryFields.icon.default(""),
    order: categoryFields.order.optional().describe(`${categoryFields.order.description ?? ""}${AFTER_THE_LAST}`),
  })
  .strict();
export const updateCategorySchema = z
  .object({ name: categoryFields.name.optional(), description: categoryFields.description.optional(), icon: categoryFields.icon.optional(), order: categoryFields.order.optional() })
  .strict();
export const createViewSchema = z
  .object({
    name: viewFields.name,
    filters: viewFields.filters.default({}),
    order: viewFields.order.optional().describe(`${viewFields.order.description ?? ""}${AFTER_THE_LAST}`),
  })
  .strict();
export const updateViewSchema = z.object({ name: viewFields.name.optional(), filters: viewFields.filters.optional(), order: viewFields.order.optional() }).strict();

export const analyticsFields = {
  since: instant().describe("Start (inclusive), ISO 8601; default 30 days before until."),
  until: instant().describe("End (exclusive), ISO 8601; default now."),
  interval: z.enum(ANALYTICS_INTERVALS).describe("hour, day or week (days and weeks in the project's time zone; weeks start on Monday)."),
  groupBy: z.enum(ANALYTICS_GROUP_BY).describe("keyword, group, source, sentiment, status or category."),
};

/** Why a rating was given (rate_mention): characters as people see them, checked by the edge and the service alike. */
export const feedbackReasonField = textField({ ...TEXT_LIMITS.feedbackReason, trim: true }).describe("Why, in a few words (at most 500 characters); kept with the rating.");
