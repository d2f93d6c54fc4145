// The matcher's contract with the keyword and mention services. Plain data in, plain data out, so the
// module has no dependency and any service can compile and run it.

export type MatchSource = "x" | "reddit" | "youtube" | "linkedin" | "hackernews" | "bluesky" | "rss" | "github";

export interface MatcherKeyword {
  id: string;
  groupId: string;
  value: string;
  aliases: readonly string[];
  excludedTerms: readonly string[];
  caseSensitive: boolean;
  sources: readonly MatchSource[];
  filters: {
    languages?: readonly string[]; // ISO 639-1, lower case
    minFollowers?: number;
    excludeAuthors?: readonly string[]; // handles (with or without a leading @) or author ids
    subreddits?: readonly string[]; // names without r/
    youtubeChannels?: readonly string[]; // channel ids (UC…) or @handles
    allOf?: readonly string[]; // phrases that must also appear
  };
}

export interface MatchablePost {
  source: MatchSource;
  text: string;
  title?: string;
  lang?: string;
  author: { id: string; handle: string; name?: string; followers?: number };
  url?: string; // a Reddit permalink names its subreddit (/r/<name>/) when `subreddit` is absent
  subreddit?: string; // Reddit: the community, without r/
  channelId?: string; // YouTube: the channel the video (or the commented video) belongs to
  channelHandle?: string; // YouTube: that channel's @handle, when known
}

export type MatchField = "title" | "text";

export interface TermMatch {
  keywordId: string;
  term: string;
  field: MatchField;
  start: number;
  end: number;
}

export interface KeywordHit {
  keywordId: string;
  groupId: string;
  matches: TermMatch[];
}

export interface KeywordMatcher {
  readonly size: number;
  match(post: MatchablePost): KeywordHit[];
}

/** At most this many matches are reported per keyword (the first ones in report order). */
export const MAX_MATCHES_PER_KEYWORD = 16;

/** Report order of matches: title before text, then start, end and term (code-unit order). */
export const compareTermMatches = (a: TermMatch, b: TermMatch): number => {
  if (a.field !== b.field) return a.field === "title" ? -1 : 1;
  if (a.start !== b.start) return a.start - b.start;
  if (a.end !== b.end) return a.end - b.end;
  return a.term < b.term ? -1 : a.term > b.term ? 1 : 0;
};
