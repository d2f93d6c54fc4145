// What the matcher needs to know about a code point: is it a word character, is it written in a script
// without spaces, is it whitespace, what does it fold to, and what is its canonical decomposition. Regular expressions and String methods
// answer that slowly, so each code point is asked once and the answer kept in flat typed arrays that the
// hot loop reads without allocating.

export const KNOWN = 1;
export const WORD = 2;
export const NO_SPACE = 4;
export const SPACE = 8;
export const FOLD_MASK = 48;
/** Folds to itself. */
export const FOLD_SELF = 0;
/** Folds to one BMP code unit, read from `foldedUnit`. */
export const FOLD_ONE = 16;
/** Folds to nothing (a stripped combining accent). */
export const FOLD_NONE = 32;
/** Folds to several code units, read from `foldedUnits`. */
export const FOLD_MANY = 48;
/** Its canonical decomposition (NFD) is not itself: read from `decomposedUnitsOf`. */
export const DECOMPOSES = 64;
/** Its decomposition starts with a non-starter (canonical combining class > 0): a mark that canonical ordering may move. */
export const NON_STARTER = 128;

const LETTER_DIGIT_MARK = /^[\p{L}\p{N}\p{M}]$/u;
// Scripts written without spaces between words: no word boundary is needed next to their characters.
// Script_Extensions, so the marks and the prolonged-sound sign they share (ー) count as theirs.
const NO_SPACE_SCRIPT = /^[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Thai}\p{scx=Laoo}\p{scx=Khmr}\p{scx=Mymr}]$/u;
const WHITESPACE = /^\s$/u;
// Only the generic combining diacritics fold away; marks that belong to a script (Devanagari vowel
// signs, Thai tone marks, the kana voicing mark) are part of the word.
const FOLDED_MARKS = /[\u0300-\u036f]|[\u1ab0-\u1aff]|[\u1dc0-\u1dff]|[\u20d0-\u20ff]|[\ufe20-\ufe2f]/g;

/**
 * Variation selectors are marks, but after an emoji they are part of the emoji ("❤️"), not of a word,
 * so they do not count as word characters (otherwise "❤️acme" could never match "acme").
 */
const isVariationSelector = (cp: number): boolean => (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);

const isSurrogate = (cp: number): boolean => cp >= 0xd800 && cp <= 0xdfff;

// JavaScript does not expose combining classes, but normalisation applies them: canonical ordering swaps
// two adjacent non-starters when the first has the higher class, and never moves a starter (class 0).
// U+0334 has class 1 and U+0345 class 240, the highest: a non-starter after U+0345, or before U+0334,
// trades places with it unless its class is 240, or 1, respectively.
const LOWEST_CLASS = "\u0334";
const HIGHEST_CLASS = "\u0345";
const isNonStarter = (ch: string): boolean =>
  (ch + LOWEST_CLASS).normalize("NFD") !== ch + LOWEST_CLASS || (HIGHEST_CLASS + ch).normalize("NFD") !== HIGHEST_CLASS + ch;

/** The case- and accent-insensitive form of one code point (lower case, NFD, generic accents removed). */
export const foldCodePoint = (cp: number): string => {
  if (isSurrogate(cp)) return String.fromCharCode(cp);
  const lower = String.fromCodePoint(cp).toLowerCase();
  // Lower-casing one character cannot see the end of a word, so Σ becomes σ; final ς folds to σ too.
  return (lower === "\u03c2" ? "\u03c3" : lower).normalize("NFD").replace(FOLDED_MARKS, "");
};

let classes: Uint8Array | undefined;
const foldedUnit = new Uint16Array(0x10000);
const foldedMany = new Map<number, string>();
const decomposed = new Map<number, string>();

/** In a step table: this unit needs the general path (not learned yet, whitespace, a surrogate, or a fold to none or several units). */
export const NOT_SIMPLE = 0xffff;
// Per BMP unit, the one unit the scanner feeds to the trie for it: the hot loop's shortcut past the
// class and fold branches for the common case.
const foldedStep = new Uint16Array(0x10000).fill(NOT_SIMPLE);
const exactStep = new Uint16Array(0x10000).fill(NOT_SIMPLE);

const learn = (table: Uint8Array, cp: number): number => {
  let c = KNOWN;
  if (isSurrogate(cp)) {
    table[cp] = c;
    return c;
  }
  const ch = String.fromCodePoint(cp);
  if (LETTER_DIGIT_MARK.test(ch) && !isVariationSelector(cp)) c |= WORD;
  if (NO_SPACE_SCRIPT.test(ch)) c |= NO_SPACE;
  if (WHITESPACE.test(ch)) c |= SPACE;
  const nfd = ch.normalize("NFD");
  if (nfd !== ch) {
    c |= DECOMPOSES;
    decomposed.set(cp, nfd);
  }
  if (isNonStarter(String.fromCodePoint(nfd.codePointAt(0) as number))) c |= NON_STARTER;
  const folded = foldCodePoint(cp);
  if (folded.length === 0) c |= FOLD_NONE;
  else if (folded !== ch) {
    if (folded.length === 1 && cp <= 0xffff) {
      c |= FOLD_ONE;
      foldedUnit[cp] = folded.charCodeAt(0);
    } else {
      c |= FOLD_MANY;
      foldedMany.set(cp, folded);
    }
  }
  if (cp <= 0xffff && (c & SPACE) === 0) {
    // Exact reading decomposes, and a mark may be reordered with the next: both need the general path.
    if ((c & (DECOMPOSES | NON_STARTER)) === 0) exactStep[cp] = cp;
    const kind = c & FOLD_MASK;
    if (kind === FOLD_SELF) foldedStep[cp] = cp;
    else if (kind === FOLD_ONE) foldedStep[cp] = foldedUnit[cp] as number;
  }
  table[cp] = c;
  return c;
};

/** The step table of folded or exact scanning: see NOT_SIMPLE. */
export const stepTable = (fold: boolean): Uint16Array => (fold ? foldedStep : exactStep);

/** One byte per code point (0 = not yet learned); read it, and call `classOf` when it is 0. */
export const classTable = (): Uint8Array => (classes ??= new Uint8Array(0x110000));

export const classOf = (cp: number): number => {
  const table = classTable();
  const c = table[cp] as number;
  return c !== 0 ? c : learn(table, cp);
};

/** The single unit a FOLD_ONE code point folds to. */
export const foldedUnitOf = (cp: number): number => foldedUnit[cp] as number;

/** The units a FOLD_MANY code point folds to. */
export const foldedUnitsOf = (cp: number): string => foldedMany.get(cp) as string;

/** The canonical decomposition (NFD) of a DECOMPOSES code point. */
export const decomposedUnitsOf = (cp: number): string => decomposed.get(cp) as string;
