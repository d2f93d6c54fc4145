import { canonicalPhrase } from "@earshot/contracts/matcher";

// The words a mention is found by (the `q` filter): letters, digits and marks in runs, folded the way the
// matcher folds a case-insensitive phrase (lower case, accents removed), each kept once. Stored with the
// mention at ingestion, so a search is an index lookup per word rather than a scan of texts. A word is
// what lies between spaces and punctuation: `#launch` and `launch` are the same word here, and a run of a
// script written without spaces (Chinese, Japanese, Thai) is one word.

const WORD_RUN = /[\p{L}\p{N}\p{M}]+/gu;

/** Longer runs are not words anyone searches for (hashes, encoded data); they are left out. */
export const MAX_WORD_LENGTH = 64;

/** One word folded: lower case, accents removed (empty when nothing matchable is left). */
export const foldWord = (word: string): string => (ASCII_WORD.test(word) ? word.toLowerCase() : canonicalPhrase(word, false));

// Most words are plain ASCII letters and digits, which fold to their lower case: the general fold reads
// every character's class, and this runs for every word of every ingested post.
const ASCII_WORD = /^[A-Za-z0-9]+$/;

/** The folded words of `texts`, each once, in order of first appearance. */
export const wordsOf = (...texts: Array<string | undefined>): string[] => {
  const words = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    for (const [run] of text.matchAll(WORD_RUN)) {
      if (run.length > MAX_WORD_LENGTH) continue;
      const folded = foldWord(run);
      if (folded) words.add(folded);
    }
  }
  return [...words];
};

/** The words of a `q` filter, folded like stored words: a mention matches when it has every one of them. */
export const queryWords = (q: string): string[] => wordsOf(q);

/** The author filter's key for a handle: trimmed, without a leading @, lower case. */
export const authorKeyOf = (handle: string): string => handle.trim().replace(/^@/, "").toLowerCase();
