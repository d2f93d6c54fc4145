import { ANALYTICS_GROUP_BY, ANALYTICS_INTERVALS, MENTION_STATUSES, SENTIMENTS } from "@earshot/mention/fields";
import { MENTION_STATUS_WORDS } from "@earshot/mention/filters";
import { SOURCE_WORDS } from "@earshot/platform";
import { SOURCES } from "@earshot/project/fields";
import type { mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { at, int, oneOf, required, resourceSchemas, timestamp } from "../shared/resources";
import { apiWord } from "../shared/wire-enums";

// A mention (list_mentions, export_mentions' lines, the triage verbs), a mention with its triage history
// (get_mention) and the mention analytics.

const mentionAuthorSchema = z.object({
  id: z.string(),
  handle: z.string(),
  name: z.string(),
  url: z.string().nullable(),
  followers: z.number().int().nullable().describe("Null when the platform does not say."),
});

const mentionFieldsSchema = {
  id: z.string(),
  projectId: z.string(),
  source: z.enum(SOURCES),
  sourceId: z.string().describe("The post's id on its platform."),
  url: z.string(),
  title: z.string().nullable(),
  text: z.string(),
  author: mentionAuthorSchema,
  publishedAt: timestamp,
  lang: z.string().nullable().describe("ISO 639-1, when the platform says."),
  parentId: z.string().nullable().describe("The post this one comments on, if any."),
  metrics: z.object({ likes: z.number().int(), replies: z.number().int(), shares: z.number().int(), views: z.number().int() }).nullable(),
  keywordIds: z.array(z.string()).describe("The project's keywords the post matched."),
  groupIds: z.array(z.string()).describe("Their groups."),
  matches: z
    .array(
      z.object({
        keywordId: z.string(),
        term: z.string().describe("The phrase (value or alias) that fired."),
        field: z.enum(["title", "text"]),
        start: z.number().int().describe("UTF-16 offset into the field."),
        end: z.number().int().describe("UTF-16 offset, exclusive."),
      }),
    )
    .describe("Which phrase of which keyword fired where."),
  sentiment: z
    .object({
      label: z.enum(SENTIMENTS),
      score: z.number().min(-1).max(1),
      method: z.string().describe("The scorer: lexicon (a word list with negation), not a model."),
    }),
  status: z.enum(MENTION_STATUSES),
  categoryId: z.string().nullable().describe("Null while uncategorized."),
  collectedAt: timestamp,
  matchedAt: timestamp.describe("When Earshot stored it as a mention."),
  updatedAt: timestamp,
};

export const mentionSchema = z
  .object(mentionFieldsSchema)
  .register(resourceSchemas, { id: "Mention", description: "A post that matched keywords of a project, with its triage." });

export const mentionWithHistorySchema = z
  .object({
    ...mentionFieldsSchema,
    history: z
      .array(
        z.object({
          field: z.enum(["status", "categoryId"]),
          from: z.string().nullable().describe("Null: uncategorized."),
          to: z.string().nullable().describe("Null: uncategorized."),
          byUserId: z.string(),
          at: timestamp,
        }),
      )
      .describe("Status and category changes, oldest first (the last 100)."),
  })
  .register(resourceSchemas, { id: "MentionWithHistory", description: "A mention with its triage history." });

const countsSchema = z.record(z.string(), z.number().int());

export const mentionAnalyticsSchema = z
  .object({
    buckets: z
      .array(z.object({ start: timestamp, counts: countsSchema.describe('Mentions by the groupBy key ("all" without groupBy); keys with none are left out.') }))
      .describe("One per interval from since to until, oldest first, empty ones included."),
    totals: countsSchema.describe("The buckets' counts summed by key."),
    total: z.number().int().describe("Mentions in the period (a mention counts once, whatever it is grouped by)."),
    shareOfVoice: z.object({
      myBrand: z.number().int().describe("Mentions matching a keyword of My brand."),
      competitors: z.number().int().describe("Mentions matching a keyword of Competitors."),
      myBrandShare: z.number().min(0).max(1).describe("myBrand / (myBrand + competitors); 0 when both are 0."),
    }),
    timezone: z.string().describe("The project's time zone, in which days and weeks begin."),
    interval: z.enum(ANALYTICS_INTERVALS),
    groupBy: z.enum(ANALYTICS_GROUP_BY).nullable(),
  })
  .register(resourceSchemas, { id: "MentionAnalytics", description: "Mention counts over time and by a dimension, with share of voice." });

export type Mention = z.output<typeof mentionSchema>;
export type MentionWithHistory = z.output<typeof mentionWithHistorySchema>;
export type MentionAnalytics = z.output<typeof mentionAnalyticsSchema>;

const presentAuthor = (message: mentionV1.Author | undefined): Mention["author"] => {
  const a = required(message, "mention author");
  return { id: a.id, handle: a.handle, name: a.name, url: a.url ?? null, followers: a.followers === undefined ? null : int(a.followers, "author followers") };
};

export const presentMention = (message: mentionV1.Mention | undefined): Mention => {
  const m = required(message, "mention");
  const sentiment = required(m.sentiment, "mention sentiment");
  return {
    id: m.id,
    projectId: m.projectId,
    source: oneOf(SOURCES, apiWord(SOURCE_WORDS, m.source), "source"),
    sourceId: m.sourceId,
    url: m.url,
    title: m.title ?? null,
    text: m.text,
    author: presentAuthor(m.author),
    publishedAt: at(m.publishedAt, "mention publishedAt"),
    lang: m.lang ?? null,
    parentId: m.parentId ?? null,
    metrics: m.metrics
      ? { likes: int(m.metrics.likes, "likes"), replies: int(m.metrics.replies, "replies"), shares: int(m.metrics.shares, "shares"), views: int(m.metrics.views, "views") }
      : null,
    keywordIds: m.keywordIds,
    groupIds: m.groupIds,
    matches: m.matches.map((t) => ({ keywordId: t.keywordId, term: t.term, field: oneOf(["title", "text"] as const, t.field, "match field"), start: t.start, end: t.end })),
    sentiment: { label: oneOf(SENTIMENTS, sentiment.label, "sentiment"), score: sentiment.score, method: sentiment.method },
    status: oneOf(MENTION_STATUSES, apiWord(MENTION_STATUS_WORDS, m.status), "mention status"),
    categoryId: m.categoryId || null,
    collectedAt: at(m.collectedAt, "mention collectedAt"),
    matchedAt: at(m.matchedAt, "mention matchedAt"),
    updatedAt: at(m.updatedAt, "mention updatedAt"),
  };
};

export const presentMentionWithHistory = (message: mentionV1.Mention | undefined): MentionWithHistory => ({
  ...presentMention(message),
  history: required(message, "mention").history.map((c) => ({
    field: oneOf(["status", "categoryId"] as const, c.field, "history field"),
    from: c.from || null,
    to: c.to || null,
    byUserId: c.byUserId,
    at: at(c.at, "history at"),
  })),
});

const presentCounts = (counts: Record<string, string>): Record<string, number> =>
  Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, int(v, `count of ${k}`)]));

export const presentMentionAnalytics = (
  res: mentionV1.GetMentionAnalyticsResponse,
  asked: { interval: MentionAnalytics["interval"]; groupBy: MentionAnalytics["groupBy"] },
): MentionAnalytics => {
  const share = required(res.shareOfVoice, "share of voice");
  return {
    buckets: res.buckets.map((b) => ({ start: at(b.start, "bucket start"), counts: presentCounts(b.counts) })),
    totals: presentCounts(res.totals),
    total: int(res.total, "total"),
    shareOfVoice: { myBrand: int(share.myBrand, "myBrand"), competitors: int(share.competitors, "competitors"), myBrandShare: share.myBrandShare },
    timezone: res.timezone,
    interval: asked.interval,
    groupBy: asked.groupBy,
  };
};
