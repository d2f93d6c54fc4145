import { UnitStream } from "./unit-stream";

// The two canonical forms of a phrase: as written (what a match reports as its `term`) and as matched
// (what decides whether two keywords are duplicates).

const WHITESPACE_RUN = /\s+/g;

/** The phrase as the keyword wrote it, trimmed, each whitespace run reduced to one space. */
export const collapseSpaces = (phrase: string): string => phrase.trim().replace(WHITESPACE_RUN, " ");

const scratch = new UnitStream();

/**
 * The form the matcher compares: `collapseSpaces`, and without `caseSensitive` also lower case with the
 * generic accents removed. Two keywords of a project are duplicates when these and their case rules are
 * equal. An empty result means the phrase can never match (it is ignored).
 */
export const canonicalPhrase = (phrase: string, caseSensitive: boolean): string => {
  scratch.fill(phrase, !caseSensitive);
  return scratch.trimmedText();
};
