import { classOf, DECOMPOSES, decomposedUnitsOf, NON_STARTER } from "./char-classes";

// Exact reading is canonical: a text is read as its NFD. Decomposing is done character by character
// (char-classes.ts); what needs more is canonical ordering, which sorts each run of non-starters (marks
// of class > 0) by class, across characters: `e` + U+0302 + U+0323, `ê` + U+0323 and `ệ` all read
// e U+0323 U+0302. A run whose characters, each decomposed, are already in that order is read character
// by character like any text. A run that is not (a rare thing) is read as one block in canonical order
// from the character holding its first mark to its end, and a match never starts or ends inside it,
// since no offset of the original text falls between its units.

const HIGH_MIN = 0xd800;
const HIGH_MAX = 0xdbff;
const LOW_MIN = 0xdc00;
const LOW_MAX = 0xdfff;

/** Whether the character `cp` of class `c`, decomposed, ends with a non-starter. */
export const endsWithNonStarter = (cp: number, c: number): boolean => {
  if ((c & NON_STARTER) !== 0) return true; // its decomposition is marks only
  if ((c & DECOMPOSES) === 0) return false;
  const units = decomposedUnitsOf(cp);
  const last = units.codePointAt(units.length - 1) as number;
  const lastCp = last >= LOW_MIN && last <= LOW_MAX && units.length > 1 ? (units.codePointAt(units.length - 2) as number) : last;
  return (classOf(lastCp) & NON_STARTER) !== 0;
};

/** Where the run of non-starter characters starting at `i` ends (`i` when there is none). */
export const nonStarterRunEnd = (text: string, i: number): number => {
  const size = text.length;
  while (i < size) {
    const cp = text.codePointAt(i) as number;
    if ((classOf(cp) & NON_STARTER) === 0) return i;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
};

/**
 * The canonical order of text[from, to) (a character ending with a non-starter and the non-starters
 * after it), or undefined when decomposing each character already gives it.
 */
export const reorderedRun = (text: string, from: number, to: number): string | undefined => {
  const run = text.slice(from, to);
  const canonical = run.normalize("NFD");
  let written = "";
  for (const ch of run) {
    const cp = ch.codePointAt(0) as number;
    written += (classOf(cp) & DECOMPOSES) !== 0 ? decomposedUnitsOf(cp) : ch;
  }
  return canonical === written ? undefined : canonical;
};

/** Where the character that ends at `i` (> 0) starts. */
const charStartBefore = (text: string, i: number): number => {
  const low = text.charCodeAt(i - 1);
  if (low >= LOW_MIN && low <= LOW_MAX && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= HIGH_MIN && high <= HIGH_MAX) return i - 2;
  }
  return i - 1;
};

/** Whether the non-starter character at `i` lies inside a run read as one block, after its start. */
export const insideReorderedRun = (text: string, i: number): boolean => {
  let from = i;
  while (from > 0) {
    const before = charStartBefore(text, from);
    const cp = text.codePointAt(before) as number;
    const c = classOf(cp);
    if ((c & NON_STARTER) !== 0) from = before;
    else {
      if (endsWithNonStarter(cp, c)) from = before;
      break;
    }
  }
  return from !== i && reorderedRun(text, from, nonStarterRunEnd(text, i)) !== undefined;
};
