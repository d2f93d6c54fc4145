// The platforms mentions are collected from, as the API names them (earshot.common.v1.Source on gRPC).
// Additive: the last four need no paid access; a word is never renamed or removed, stored data names it.
export const SOURCES = ["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"] as const;
export type Source = (typeof SOURCES)[number];

/** The sources among `words` (an event's list), in SOURCES order; a word this build does not know is dropped. */
export const sourcesIn = (words: readonly string[]): Source[] => SOURCES.filter((s) => words.includes(s));
