import type { MatchablePost, MatcherKeyword, MatchSource } from "./types";

// The non-text conditions of a keyword (sources and filters), compiled into sets once so that a
// candidate keyword costs a few lookups per post. `allOf` is text and lives with the phrases.

const SOURCE_BITS: Readonly<Record<MatchSource, number>> = {
  x: 1,
  reddit: 2,
  youtube: 4,
  linkedin: 8,
  hackernews: 16,
  bluesky: 32,
  rss: 64,
  github: 128,
};

export const sourceBit = (source: string): number =>
  Object.prototype.hasOwnProperty.call(SOURCE_BITS, source) ? SOURCE_BITS[source as MatchSource] : 0;

export const sourceMask = (sources: readonly string[]): number => {
  let mask = 0;
  for (const s of sources) mask |= sourceBit(s);
  return mask;
};

/** A handle compared without its leading @ and without case. */
export const handleKey = (handle: string): string => (handle.startsWith("@") ? handle.slice(1) : handle).toLowerCase();

/** The primary language subtag in lower case: "en-GB" and "EN" both compare as "en". */
export const languageKey = (lang: string): string => (lang.trim().toLowerCase().split(/[-_]/)[0] as string);

/** A subreddit name compared without an r/ prefix and without case. */
export const subredditKey = (name: string): string => name.trim().replace(/^\/?r\//i, "").toLowerCase();

const PERMALINK_SUBREDDIT = /\/r\/([A-Za-z0-9_]+)/;

/** The post's subreddit: the `subreddit` field, else the one its permalink names. */
export const subredditOf = (post: MatchablePost): string | undefined => {
  if (typeof post.subreddit === "string" && post.subreddit.trim() !== "") return subredditKey(post.subreddit);
  const m = typeof post.url === "string" ? PERMALINK_SUBREDDIT.exec(post.url) : null;
  return m ? (m[1] as string).toLowerCase() : undefined;
};

export interface PostFilters {
  languages?: ReadonlySet<string>;
  minFollowers?: number;
  excludedHandles?: ReadonlySet<string>;
  excludedIds?: ReadonlySet<string>;
  subreddits?: ReadonlySet<string>;
  channelIds?: ReadonlySet<string>;
  channelHandles?: ReadonlySet<string>;
}

const listed = (list: readonly string[] | undefined): list is readonly string[] => Array.isArray(list) && list.length > 0;

/** The keyword's filters as sets, or undefined when it has none (an empty list filters nothing). */
export const compilePostFilters = (filters: MatcherKeyword["filters"] | undefined): PostFilters | undefined => {
  if (!filters) return undefined;
  const out: PostFilters = {};
  let any = false;
  if (listed(filters.languages)) {
    out.languages = new Set(filters.languages.map(languageKey));
    any = true;
  }
  if (typeof filters.minFollowers === "number") {
    out.minFollowers = filters.minFollowers;
    any = true;
  }
  if (listed(filters.excludeAuthors)) {
    out.excludedHandles = new Set(filters.excludeAuthors.map(handleKey));
    out.excludedIds = new Set(filters.excludeAuthors);
    any = true;
  }
  if (listed(filters.subreddits)) {
    out.subreddits = new Set(filters.subreddits.map(subredditKey));
    any = true;
  }
  if (listed(filters.youtubeChannels)) {
    const channels = filters.youtubeChannels.map((c) => c.trim());
    out.channelIds = new Set(channels.filter((c) => !c.startsWith("@")));
    out.channelHandles = new Set(channels.filter((c) => c.startsWith("@")).map(handleKey));
    any = true;
  }
  return any ? out : undefined;
};

/** What the filters read from a post, worked out once per post and only when a keyword needs it. */
export class PostFacts {
  readonly language: string | undefined;
  readonly handle: string;
  readonly subreddit: string | undefined;
  readonly channelHandle: string | undefined;

  constructor(readonly post: MatchablePost) {
    this.language = typeof post.lang === "string" && post.lang.trim() !== "" ? languageKey(post.lang) : undefined;
    this.handle = typeof post.author?.handle === "string" ? handleKey(post.author.handle) : "";
    this.subreddit = post.source === "reddit" ? subredditOf(post) : undefined;
    this.channelHandle = typeof post.channelHandle === "string" && post.channelHandle !== "" ? handleKey(post.channelHandle) : undefined;
  }
}

export const passesFilters = (f: PostFilters, facts: PostFacts): boolean => {
  const { post } = facts;
  if (f.languages && (facts.language === undefined || !f.languages.has(facts.language))) return false;
  if (f.minFollowers !== undefined) {
    const followers = post.author?.followers;
    if (typeof followers !== "number" || !(followers >= f.minFollowers)) return false;
  }
  if (f.excludedHandles && facts.handle !== "" && f.excludedHandles.has(facts.handle)) return false;
  if (f.excludedIds && typeof post.author?.id === "string" && f.excludedIds.has(post.author.id)) return false;
  if (f.subreddits && post.source === "reddit" && (facts.subreddit === undefined || !f.subreddits.has(facts.subreddit))) return false;
  if (f.channelIds && f.channelHandles && post.source === "youtube") {
    const byId = typeof post.channelId === "string" && f.channelIds.has(post.channelId);
    const byHandle = facts.channelHandle !== undefined && f.channelHandles.has(facts.channelHandle);
    if (!byId && !byHandle) return false;
  }
  return true;
};
