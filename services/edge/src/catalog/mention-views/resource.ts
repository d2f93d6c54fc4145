import { MENTION_STATUSES, RELEVANCE_LABELS, SENTIMENTS } from "@earshot/mention/fields";
import { filtersOf } from "@earshot/mention/filters";
import { SOURCES } from "@earshot/project/fields";
import type { mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { at, oneOf, required, resourceSchemas, timestamp } from "../shared/resources";

const mentionViewFiltersSchema = z
  .object({
    status: z.array(z.enum(MENTION_STATUSES)).optional(),
    keywordId: z.array(z.string()).optional(),
    groupId: z.array(z.string()).optional(),
    source: z.array(z.enum(SOURCES)).optional(),
    categoryId: z.array(z.string()).optional(),
    sentiment: z.array(z.enum(SENTIMENTS)).optional(),
    q: z.string().optional(),
    author: z.array(z.string()).optional(),
    since: timestamp.optional(),
    until: timestamp.optional(),
    minRelevance: z.number().optional(),
    relevance: z.array(z.enum(RELEVANCE_LABELS)).optional(),
  })
  .describe("The list_mentions filters the view applies; a member left out does not filter.");

export const mentionViewSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    filters: mentionViewFiltersSchema,
    order: z.number().int().describe("Position among the project's views (ascending)."),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .register(resourceSchemas, { id: "MentionView", description: "A saved set of list_mentions filters." });

export type MentionView = z.output<typeof mentionViewSchema>;

/**
 * A view's filters as given: only the members that filter something (an empty list filters nothing), read
 * as the service reads them; the words of the enumerated members must be the API's.
 */
const presentViewFilters = (message: mentionV1.MentionFilters | undefined): MentionView["filters"] => {
  const f = filtersOf(message);
  // Replacing a member keeps its place, so the members stay in the order filtersOf gives them.
  return {
    ...f,
    ...(f.status && { status: f.status.map((v) => oneOf(MENTION_STATUSES, v, "status filter")) }),
    ...(f.source && { source: f.source.map((v) => oneOf(SOURCES, v, "source filter")) }),
    ...(f.sentiment && { sentiment: f.sentiment.map((v) => oneOf(SENTIMENTS, v, "sentiment filter")) }),
    ...(f.relevance && { relevance: f.relevance.map((v) => oneOf(RELEVANCE_LABELS, v, "relevance filter")) }),
  };
};

export const presentMentionView = (message: mentionV1.MentionView | undefined): MentionView => {
  const v = required(message, "mention view");
  return {
    id: v.id,
    projectId: v.projectId,
    name: v.name,
    filters: presentViewFilters(v.filters),
    order: v.order,
    createdAt: at(v.createdAt, "mention view createdAt"),
    updatedAt: at(v.updatedAt, "mention view updatedAt"),
  };
};
