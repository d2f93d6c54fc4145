import { SOURCE_WORDS } from "@earshot/platform";
import { SOURCES } from "@earshot/platform/core";
import type { keywordV1 } from "@earshot/proto";
import { z } from "zod";
import { apiWord, at, atOrNull, oneOf, optionalTimestamp, required, resourceSchemas, timestamp } from "./present";

// A keyword as get_keyword answers it and a `keyword.*` webhook carries it.

const keywordFiltersSchema = z
  .object({
    languages: z.array(z.string()).optional().describe("ISO 639-1 codes; only posts in one of them match."),
    minFollowers: z.number().int().optional().describe("Only posts whose author has at least this many followers match."),
    excludeAuthors: z.array(z.string()).optional().describe("Authors whose posts never match."),
    subreddits: z.array(z.string()).optional().describe("Reddit posts match only in these subreddits."),
    youtubeChannels: z.array(z.string()).optional().describe("YouTube posts match only from these channels."),
    allOf: z.array(z.string()).optional().describe("Phrases that must also appear in the post."),
  })
  .describe("The filters that are set; a member left out does not restrict matching.");

export const keywordSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    groupId: z.string(),
    value: z.string(),
    sources: z.array(z.enum(SOURCES)),
    aliases: z.array(z.string()),
    excludedTerms: z.array(z.string()),
    filters: keywordFiltersSchema,
    caseSensitive: z.boolean(),
    active: z.boolean().describe("false once deactivated: it no longer matches; its mentions stay."),
    createdAt: timestamp,
    updatedAt: timestamp,
    deactivatedAt: optionalTimestamp.describe("When it was deactivated; null while active."),
  })
  .register(resourceSchemas, { id: "Keyword", description: "A phrase a project listens for, with its aliases, exclusions, filters and sources." });

export type Keyword = z.output<typeof keywordSchema>;

/** Only the filters that restrict something: an empty list or an absent number restricts nothing. */
const presentFilters = (f: keywordV1.KeywordFilters | undefined): Keyword["filters"] => {
  const filters: Keyword["filters"] = {};
  if (!f) return filters;
  for (const name of ["languages", "excludeAuthors", "subreddits", "youtubeChannels", "allOf"] as const) {
    if (f[name].length > 0) filters[name] = f[name];
  }
  if (f.minFollowers !== undefined) filters.minFollowers = f.minFollowers;
  return filters;
};

export const presentKeyword = (message: keywordV1.Keyword | undefined): Keyword => {
  const k = required(message, "keyword");
  return {
    id: k.id,
    projectId: k.projectId,
    groupId: k.groupId,
    value: k.value,
    sources: k.sources.map((s) => oneOf(SOURCES, apiWord(SOURCE_WORDS, s), "source")),
    aliases: k.aliases,
    excludedTerms: k.excludedTerms,
    filters: presentFilters(k.filters),
    caseSensitive: k.caseSensitive,
    active: k.active,
    createdAt: at(k.createdAt, "keyword createdAt"),
    updatedAt: at(k.updatedAt, "keyword updatedAt"),
    deactivatedAt: atOrNull(k.deactivatedAt),
  };
};
