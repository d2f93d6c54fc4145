import type { KeywordHit, MatchablePost, MatcherKeyword, MatchSource } from "./types";

// Test support: builders for keywords and posts with neutral defaults, and a readable view of hits.

export const ALL_SOURCES: readonly MatchSource[] = ["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"];

export const keyword = (value: string, over: Partial<MatcherKeyword> = {}): MatcherKeyword => ({
  id: "k",
  groupId: "g",
  value,
  aliases: [],
  excludedTerms: [],
  caseSensitive: false,
  sources: ALL_SOURCES,
  filters: {},
  ...over,
});

export const post = (text: string, over: Partial<MatchablePost> = {}): MatchablePost => ({
  source: "x",
  text,
  author: { id: "u1", handle: "someone" },
  ...over,
});

/** Each match as "<keywordId> <field> <matched text>", in the order returned. */
export const readHits = (hits: KeywordHit[], p: MatchablePost): string[] =>
  hits.flatMap((h) =>
    h.matches.map((m) => `${h.keywordId} ${m.field} ${(m.field === "title" ? (p.title ?? "") : p.text).slice(m.start, m.end)}`),
  );
