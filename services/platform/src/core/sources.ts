// The platforms mentions are collected from, as the API names them (earshot.common.v1.Source on gRPC).
export const SOURCES = ["x", "reddit", "youtube", "linkedin"] as const;
export type Source = (typeof SOURCES)[number];

/** The sources among `words` (an event's list), in SOURCES order; a word this build does not know is dropped. */
export const sourcesIn = (words: readonly string[]): Source[] => SOURCES.filter((s) => words.includes(s));
