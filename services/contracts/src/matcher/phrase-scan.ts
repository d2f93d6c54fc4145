import {
  classOf,
  classTable,
  DECOMPOSES,
  decomposedUnitsOf,
  FOLD_MANY,
  FOLD_MASK,
  FOLD_NONE,
  FOLD_ONE,
  FOLD_SELF,
  foldedUnitOf,
  foldedUnitsOf,
  KNOWN,
  NO_SPACE,
  NON_STARTER,
  NOT_SIMPLE,
  SPACE,
  WORD,
} from "./char-classes";
import { endsWithNonStarter, insideReorderedRun, nonStarterRunEnd, reorderedRun } from "./mark-runs";
import { childOf, type FrozenTrie, NODE, rootChild, TERMINAL } from "./phrase-trie";

// Finds every phrase occurrence in one field. One pass over the code points finds where a match may
// start (the code point before is not a word character, or one of the two is in a no-space script);
// from each such place the tries are walked, folding on the fly, until they have no edge for the next
// unit. Nothing is allocated per character; the text is never copied (but for a run of marks written
// out of canonical order, which is rare).
//
// The text is read as the tries were built (see canonical.ts): code point by code point, folded or
// exact (decomposed, runs of marks in canonical order: mark-runs.ts), every whitespace run as one space
// (accents that fold away do not interrupt a run).

export interface OccurrenceSink {
  /** `phrase` occurs in field `field` at [start, end) of the original string. */
  note(phrase: number, field: number, start: number, end: number): void;
}

const HIGH_MIN = 0xd800;
const HIGH_MAX = 0xdbff;
const LOW_MIN = 0xdc00;
const LOW_MAX = 0xdfff;

// Bits of the class byte that decide whether a unit continues a word of a spaced script.
const IN_WORD_MASK = KNOWN | WORD | NO_SPACE;
const IN_WORD = KNOWN | WORD;

export const scanField = (text: string, field: number, folded: FrozenTrie | undefined, exact: FrozenTrie | undefined, sink: OccurrenceSink): void => {
  const table = classTable();
  const size = text.length;
  let prevWord = false;
  let prevNoSpace = false;
  let i = 0;
  while (i < size) {
    if (prevWord && !prevNoSpace) {
      // Inside a word of a spaced script no match can start: run to the end of the word.
      while (i < size && ((table[text.charCodeAt(i)] as number) & IN_WORD_MASK) === IN_WORD) i++;
      if (i === size) return;
    }
    let cp = text.charCodeAt(i);
    if (cp === 0x20) {
      // The commonest separator, and no phrase starts with a space.
      prevWord = false;
      prevNoSpace = false;
      i++;
      continue;
    }
    let width = 1;
    if (cp >= HIGH_MIN && cp <= HIGH_MAX && i + 1 < size) {
      const low = text.charCodeAt(i + 1);
      if (low >= LOW_MIN && low <= LOW_MAX) {
        cp = ((cp - HIGH_MIN) << 10) + (low - LOW_MIN) + 0x10000;
        width = 2;
      }
    }
    let c = table[cp] as number;
    if (c === 0) c = classOf(cp);
    const noSpace = (c & NO_SPACE) !== 0;
    if ((c & SPACE) === 0 && (!prevWord || prevNoSpace || noSpace)) {
      if (folded !== undefined) {
        // Most places start no phrase: look at the root's edge before anything else.
        const unit = width === 1 ? (folded.step[cp] as number) : NOT_SIMPLE;
        if (unit === NOT_SIMPLE) startWalk(text, i, cp, width, c, field, folded, sink);
        else {
          const ref = rootChild(folded, unit);
          if (ref !== 0) walkOn(text, i, i + 1, ref, field, folded, sink);
        }
      }
      if (exact !== undefined) {
        const unit = width === 1 ? (exact.step[cp] as number) : NOT_SIMPLE;
        if (unit === NOT_SIMPLE) startWalk(text, i, cp, width, c, field, exact, sink);
        else {
          const ref = rootChild(exact, unit);
          if (ref !== 0) walkOn(text, i, i + 1, ref, field, exact, sink);
        }
      }
    }
    prevWord = (c & WORD) !== 0;
    prevNoSpace = noSpace;
    i += width;
  }
};

/** Walks `trie` from `start`, where code point `cp` of class `c` begins, if the root has an edge for it. */
const startWalk = (text: string, start: number, cp: number, width: number, c: number, field: number, trie: FrozenTrie, sink: OccurrenceSink): void => {
  if (!trie.fold && (c & (DECOMPOSES | NON_STARTER)) !== 0) {
    if ((c & NON_STARTER) !== 0) {
      // A mark may begin a run read in another order, so its first unit is not known yet.
      if (insideReorderedRun(text, start)) return;
    } else if (rootChild(trie, decomposedUnitsOf(cp).charCodeAt(0)) === 0) return;
    walkGeneral(text, start, start, 0, field, trie, sink);
    return;
  }
  const kind = trie.fold ? c & FOLD_MASK : FOLD_SELF;
  const first = kind === FOLD_SELF ? text.charCodeAt(start) : kind === FOLD_ONE ? foldedUnitOf(cp) : kind === FOLD_MANY ? foldedUnitsOf(cp).charCodeAt(0) : -1;
  if (first < 0) return;
  const ref = rootChild(trie, first);
  if (ref === 0) return;
  if (width === 1 && kind !== FOLD_MANY) walkOn(text, start, start + 1, ref, field, trie, sink);
  else walkGeneral(text, start, start, 0, field, trie, sink);
};

/**
 * The common case, kept small: units that map one to one. Continues at `i` over the edge `ref`, taken
 * by the single unit at i - 1; hands over to walkGeneral at the first unit that needs more care.
 */
const walkOn = (text: string, start: number, i: number, ref: number, field: number, trie: FrozenTrie, sink: OccurrenceSink): void => {
  const { edgeStart, edgeUnit, edgeChild, step } = trie;
  const size = text.length;
  for (;;) {
    const node = ref & NODE;
    if ((ref & TERMINAL) !== 0) {
      noteIfBoundary(text, start, i, classTable()[text.charCodeAt(i - 1)] as number, trie.fold, trie.phraseAt[node] as number, field, sink);
    }
    if (i === size) return;
    const unit = step[text.charCodeAt(i)] as number;
    if (unit === NOT_SIMPLE) {
      walkGeneral(text, start, i, node, field, trie, sink);
      return;
    }
    ref = childOf(edgeStart, edgeUnit, edgeChild, node, unit);
    if (ref === 0) return;
    i++;
  }
};

/**
 * Any unit: whitespace runs, accents that fold away, folds to several units, surrogate pairs, and in
 * exact reading decompositions and runs of marks (mark-runs.ts).
 */
const walkGeneral = (text: string, start: number, i: number, node: number, field: number, trie: FrozenTrie, sink: OccurrenceSink): void => {
  const table = classTable();
  const { edgeStart, edgeUnit, edgeChild, phraseAt, fold } = trie;
  const size = text.length;
  let inSpace = false;
  // Exact reading: the end of a run of marks already found in canonical order.
  let orderedTo = 0;
  while (i < size) {
    let cp = text.charCodeAt(i);
    let width = 1;
    if (cp >= HIGH_MIN && cp <= HIGH_MAX && i + 1 < size) {
      const low = text.charCodeAt(i + 1);
      if (low >= LOW_MIN && low <= LOW_MAX) {
        cp = ((cp - HIGH_MIN) << 10) + (low - LOW_MIN) + 0x10000;
        width = 2;
      }
    }
    let c = table[cp] as number;
    if (c === 0) c = classOf(cp);
    if ((c & SPACE) !== 0) {
      i += width;
      if (inSpace) continue;
      inSpace = true;
      // Phrases never end with a space, so there is nothing to note here.
      node = (node === 0 ? rootChild(trie, 0x20) : childOf(edgeStart, edgeUnit, edgeChild, node, 0x20)) & NODE;
      if (node === 0) return;
      continue;
    }
    const kind = fold ? c & FOLD_MASK : FOLD_SELF;
    if (kind === FOLD_NONE) {
      i += width;
      continue;
    }
    inSpace = false;
    // Each code point yields one, two (a surrogate pair) or several (a fold, a decomposition) units,
    // and a run of marks read in canonical order one block of them; only after the last may a phrase end.
    let next = i + width;
    let units: string | undefined;
    if (kind === FOLD_MANY) units = foldedUnitsOf(cp);
    else if (!fold && (c & (DECOMPOSES | NON_STARTER)) !== 0) {
      if ((c & DECOMPOSES) !== 0) units = decomposedUnitsOf(cp);
      if (i >= orderedTo && endsWithNonStarter(cp, c)) {
        const runEnd = nonStarterRunEnd(text, next);
        if (runEnd > next) {
          const reordered = reorderedRun(text, i, runEnd);
          if (reordered === undefined) orderedTo = runEnd;
          else {
            units = reordered;
            next = runEnd;
          }
        }
      }
    }
    let ref = 0;
    if (units !== undefined) {
      ref = node === 0 ? rootChild(trie, units.charCodeAt(0)) : childOf(edgeStart, edgeUnit, edgeChild, node, units.charCodeAt(0));
      for (let k = 1; k < units.length && ref !== 0; k++) ref = childOf(edgeStart, edgeUnit, edgeChild, ref & NODE, units.charCodeAt(k));
    } else if (kind === FOLD_ONE) {
      const unit = foldedUnitOf(cp);
      ref = node === 0 ? rootChild(trie, unit) : childOf(edgeStart, edgeUnit, edgeChild, node, unit);
    } else {
      const unit = text.charCodeAt(i);
      ref = node === 0 ? rootChild(trie, unit) : childOf(edgeStart, edgeUnit, edgeChild, node, unit);
      if (width === 2 && ref !== 0) ref = childOf(edgeStart, edgeUnit, edgeChild, ref & NODE, text.charCodeAt(i + 1));
    }
    if (ref === 0) return;
    node = ref & NODE;
    i = next;
    // A block's boundary is decided by the character it starts with.
    if ((ref & TERMINAL) !== 0) noteIfBoundary(text, start, i, c, fold, phraseAt[node] as number, field, sink);
  }
};

/**
 * Notes the phrase matched at [start, i) when a boundary follows. The match extends over accents that
 * fold away right after it, so `end` is the next character that counts, whose class decides.
 */
const noteIfBoundary = (text: string, start: number, i: number, last: number, fold: boolean, phrase: number, field: number, sink: OccurrenceSink): void => {
  const size = text.length;
  let end = i;
  let after = 0;
  while (end < size) {
    let cp = text.charCodeAt(end);
    let width = 1;
    if (cp >= HIGH_MIN && cp <= HIGH_MAX && end + 1 < size) {
      const low = text.charCodeAt(end + 1);
      if (low >= LOW_MIN && low <= LOW_MAX) {
        cp = ((cp - HIGH_MIN) << 10) + (low - LOW_MIN) + 0x10000;
        width = 2;
      }
    }
    after = classOf(cp);
    if (!fold || (after & SPACE) !== 0 || (after & FOLD_MASK) !== FOLD_NONE) break;
    end += width;
  }
  if (end < size && (last & WORD) !== 0 && (after & WORD) !== 0 && ((last | after) & NO_SPACE) === 0) return;
  sink.note(phrase, field, start, end);
};
