import { classOf, FOLD_MASK, FOLD_NONE, FOLD_ONE, FOLD_SELF, foldedUnitOf, foldedUnitsOf, SPACE } from "./char-classes";

// The two canonical forms of a phrase: as written (what a match reports as its `term`) and as matched
// (what decides whether two keywords are duplicates, and what the tries hold: folded as it is, exact
// decomposed). The scanner reads texts by the same rules (phrase-scan.ts), so a phrase and the text it
// occurs in are always comparable.

const WHITESPACE_RUN = /\s+/g;

/** The phrase as the keyword wrote it, trimmed, each whitespace run reduced to one space. */
export const collapseSpaces = (phrase: string): string => phrase.trim().replace(WHITESPACE_RUN, " ");

/**
 * The form the matcher compares: code point by code point, folded (lower case, NFD, generic accents
 * removed) unless `caseSensitive`, else composed (NFC: canonically equivalent phrases are equal); every
 * whitespace run one space, none at the ends. Two keywords of a project are duplicates when these and
 * their case rules are equal. An empty result means the phrase can never match (it is ignored).
 */
export const canonicalPhrase = (phrase: string, caseSensitive: boolean): string => {
  let out = "";
  let pendingSpace = false;
  for (const ch of phrase) {
    const cp = ch.codePointAt(0) as number;
    const c = classOf(cp);
    if ((c & SPACE) !== 0) {
      pendingSpace = out !== "";
      continue;
    }
    // An accent that folds away leaves a whitespace run whole, as in texts.
    if (!caseSensitive && (c & FOLD_MASK) === FOLD_NONE) continue;
    if (pendingSpace) out += " ";
    pendingSpace = false;
    if (caseSensitive) out += ch;
    else {
      const kind = c & FOLD_MASK;
      out += kind === FOLD_SELF ? ch : kind === FOLD_ONE ? String.fromCharCode(foldedUnitOf(cp)) : foldedUnitsOf(cp);
    }
  }
  return caseSensitive ? out.normalize("NFC") : out;
};

/** The units the exact trie holds for a case-sensitive canonical phrase: its canonical decomposition, as texts are read. */
export const exactUnits = (canonical: string): string => canonical.normalize("NFD");
