import { canonicalPhrase } from "@earshot/contracts/matcher";
import type { KeywordFilters } from "../fields";

// Phrases are stored as the matcher reads them (trimmed, white space collapsed), so what the API shows is
// what matches; two keywords of a project are the same keyword when their values fold to one phrase
// under the same case rule.

export const tidyPhrase = (s: string): string => s.trim().replace(/\s+/gu, " ");

export const tidyPhrases = (list: readonly string[]): string[] => list.map(tidyPhrase);

/** The unique key of an active keyword: one per project, case rule and matching value. */
export const activeKeyOf = (projectId: string, value: string, caseSensitive: boolean): string =>
  `${projectId}|${caseSensitive ? "exact" : "folded"}|${canonicalPhrase(value, caseSensitive)}`;

/** Filters as stored: empty lists left out, phrases tidied, subreddit names as given. */
export const tidyFilters = (f: KeywordFilters): KeywordFilters => {
  const out: KeywordFilters = {};
  if (f.languages?.length) out.languages = [...f.languages];
  if (f.minFollowers !== undefined) out.minFollowers = f.minFollowers;
  if (f.excludeAuthors?.length) out.excludeAuthors = f.excludeAuthors.map((a) => a.trim());
  if (f.subreddits?.length) out.subreddits = [...f.subreddits];
  if (f.youtubeChannels?.length) out.youtubeChannels = [...f.youtubeChannels];
  if (f.allOf?.length) out.allOf = tidyPhrases(f.allOf);
  return out;
};
