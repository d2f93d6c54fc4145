import { SOURCE_WORDS } from "@earshot/platform";
import { SOURCES } from "@earshot/platform/core";
import type { mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { MENTION_STATUS_WORDS, MENTION_STATUSES, SENTIMENTS } from "../fields";
import { mentionFeedbackSchema, mentionRelevanceSchema, presentFeedback, presentRelevance } from "./mention-relevance";
import { mentionStorySchema, presentStory } from "./mention-story";
import { apiWord, at, int, oneOf, required, resourceSchemas, timestamp } from "./present";

// A mention (list_mentions, export_mentions' lines, the triage verbs) and a mention with its triage history
// (get_mention, and the data of the `mention.*` webhooks).

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
  relevance: mentionRelevanceSchema,
  feedback: mentionFeedbackSchema,
  story: mentionStorySchema,
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
          field: z.enum(["status", "categoryId", "feedback"]).describe("feedback: from/to are relevant, irrelevant, or null while unrated."),
          from: z.string().nullable().describe("Null: uncategorized."),
          to: z.string().nullable().describe("Null: uncategorized."),
          byUserId: z.string(),
          at: timestamp,
        }),
      )
      .describe("Status, category and feedback changes, oldest first (the last 100)."),
  })
  .register(resourceSchemas, { id: "MentionWithHistory", description: "A mention with its triage history." });

export type Mention = z.output<typeof mentionSchema>;
export type MentionWithHistory = z.output<typeof mentionWithHistorySchema>;

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
    relevance: presentRelevance(m.relevance),
    feedback: presentFeedback(m.feedback),
    story: presentStory(m.story),
  };
};

export const presentMentionWithHistory = (message: mentionV1.Mention | undefined): MentionWithHistory => ({
  ...presentMention(message),
  history: required(message, "mention").history.map((c) => ({
    field: oneOf(["status", "categoryId", "feedback"] as const, c.field, "history field"),
    from: c.from || null,
    to: c.to || null,
    byUserId: c.byUserId,
    at: at(c.at, "history at"),
  })),
});
