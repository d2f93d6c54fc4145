// Bounded counting of user-perceived characters, shared by the edge's schemas and the services' own
// checks so both sides count the same way. Counting grapheme clusters with Intl.Segmenter costs time
// that grows with the square of the input's length (V8 20: ~0.5 s and 300 MB for 20,000 characters),
// so every check first applies cheap bounds that need no segmentation: the UTF-16 length (a string of
// N characters has at least N units) and the UTF-8 byte size, before counting anything.

/** More combining marks than this on one character is abuse ("Zalgo" text), not writing. */
export const MAX_MARKS_PER_CHARACTER = 8;
/**
 * More code points than this in one character is abuse too: the longest emoji sequences (a kiss with two
 * skin tones, a subdivision flag) have 10, a long Indic conjunct about as many; a ZWJ chain can be endless.
 */
export const MAX_CODE_POINTS_PER_CHARACTER = 16;
/** Default byte allowance per character: room for four 4-byte code points on average. */
export const DEFAULT_BYTES_PER_CHARACTER = 16;
const MAX_UNITS_PER_CHARACTER = MAX_CODE_POINTS_PER_CHARACTER * 2;

export interface TextLimit {
  /** Fewest characters once leading and trailing white space is ignored (a name of spaces is empty). */
  min?: number;
  /** Most characters. */
  max: number;
  /** Most UTF-8 bytes; defaults to `max × DEFAULT_BYTES_PER_CHARACTER`. */
  maxBytes?: number;
}

export const maxBytesOf = (limit: TextLimit): number => limit.maxBytes ?? limit.max * DEFAULT_BYTES_PER_CHARACTER;

const lengthMessage = (limit: TextLimit): string =>
  (limit.min ?? 0) > 0 ? `must be ${limit.min} to ${limit.max} characters` : `must be at most ${limit.max} characters`;

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
const MARK = /\p{M}/u;

/**
 * Code points after which and before which a grapheme boundary is certain whatever surrounds them:
 * grapheme cluster break property "Other" (or a Hangul syllable), not a mark, not emoji, not an Indic
 * consonant, not a regional indicator. Between two of these the text is split without ICU, which keeps
 * ordinary prose (Latin, Greek, Cyrillic, CJK, Hangul) out of the segmenter entirely.
 */
const isPlain = (cp: number): boolean =>
  (cp >= 0x20 && cp <= 0x7e) ||
  (cp >= 0xa0 && cp <= 0x2ff && cp !== 0xad) ||
  (cp >= 0x370 && cp <= 0x3ff) ||
  (cp >= 0x400 && cp <= 0x482) ||
  (cp >= 0x48a && cp <= 0x52f) ||
  (cp >= 0x3041 && cp <= 0x3096) ||
  (cp >= 0x30a1 && cp <= 0x30fa) ||
  (cp >= 0x3400 && cp <= 0x4dbf) ||
  (cp >= 0x4e00 && cp <= 0x9fff) ||
  (cp >= 0xac00 && cp <= 0xd7a3);

export type TextProblem =
  | { kind: "length" }
  | { kind: "bytes"; maxBytes: number }
  | { kind: "marks" }
  | { kind: "cluster" };

interface Count {
  characters: number;
  problem?: TextProblem;
}

/** Checks one grapheme cluster's composition; undefined when it is an acceptable character. */
const clusterProblem = (cluster: string): TextProblem | undefined => {
  if (cluster.length === 1) return undefined;
  let codePoints = 0;
  let marks = 0;
  for (const ch of cluster) {
    codePoints += 1;
    if (codePoints > MAX_CODE_POINTS_PER_CHARACTER) return { kind: "cluster" };
    if (MARK.test(ch) && ++marks > MAX_MARKS_PER_CHARACTER) return { kind: "marks" };
  }
  return undefined;
};

/**
 * Counts characters, stopping as soon as the count passes `stopAfter` or a character is refused.
 * Only runs of text that are not plain go through the segmenter, each on its own.
 */
const count = (s: string, stopAfter: number): Count => {
  let characters = 0;
  let pieceStart = 0;
  let previousPlain = false;
  const flush = (end: number): TextProblem | undefined => {
    if (end <= pieceStart) return undefined;
    // A run longer than the remaining allowance of characters at their longest is over the limit
    // whatever it holds, so only its head is segmented (the segmenter's cost grows with the run).
    const piece = s.slice(pieceStart, Math.min(end, pieceStart + (stopAfter - characters + 1) * MAX_UNITS_PER_CHARACTER));
    pieceStart = end;
    if (piece.length === 1) {
      characters += 1;
      return undefined;
    }
    for (const { segment } of segmenter.segment(piece)) {
      characters += 1;
      const problem = clusterProblem(segment);
      if (problem) return problem;
      if (characters > stopAfter) return undefined;
    }
    return undefined;
  };
  for (let i = 0; i < s.length; ) {
    const cp = s.codePointAt(i) as number;
    const plain = isPlain(cp);
    // A boundary is certain between two plain code points: count what came before on its own.
    if (plain && previousPlain) {
      const problem = flush(i);
      if (problem) return { characters, problem };
      if (characters > stopAfter) return { characters };
    }
    previousPlain = plain;
    i += cp > 0xffff ? 2 : 1;
  }
  const problem = flush(s.length);
  return problem ? { characters, problem } : { characters };
};

/**
 * The user-perceived characters of `s` (extended grapheme clusters), counting at most `stopAfter + 1`
 * so that a long string costs no more than the limit it is checked against.
 */
export const countCharacters = (s: string, stopAfter = Number.MAX_SAFE_INTEGER): number => count(s, stopAfter).characters;

/** Whether `s` has anything but white space (the white space String.prototype.trim removes), without copying it. */
const hasContent = (s: string): boolean => /\S/.test(s);

/**
 * Why `s` breaks `limit`, or undefined when it fits. Cheap bounds first: a string longer in UTF-16 units
 * than the byte allowance is over it (every unit is at least one UTF-8 byte), then the byte size; only
 * then the characters are counted, stopping one past the limit.
 */
export const textProblem = (s: string, limit: TextLimit): TextProblem | undefined => {
  const maxBytes = maxBytesOf(limit);
  if (s.length > maxBytes || Buffer.byteLength(s, "utf8") > maxBytes) {
    // Over the bytes. Its head alone tells the clearer story when it already has too many characters
    // or a refused one (a letter under thousands of marks); no more than the head is ever counted.
    const head = count(s.slice(0, (limit.max + 1) * MAX_UNITS_PER_CHARACTER), limit.max);
    if (head.problem) return head.problem;
    return head.characters > limit.max ? { kind: "length" } : { kind: "bytes", maxBytes };
  }
  const counted = count(s, limit.max);
  if (counted.problem) return counted.problem;
  if (counted.characters > limit.max) return { kind: "length" };
  const min = limit.min ?? 0;
  if (min > 0 && (!hasContent(s) || countCharacters(s.trim(), min) < min)) return { kind: "length" };
  return undefined;
};

/** The message a field error carries for `problem`, e.g. "must be 1 to 100 characters". */
export const textProblemMessage = (problem: TextProblem, limit: TextLimit): string => {
  switch (problem.kind) {
    case "length":
      return lengthMessage(limit);
    case "bytes":
      return `must be at most ${problem.maxBytes} bytes of UTF-8`;
    case "marks":
      return `must not stack more than ${MAX_MARKS_PER_CHARACTER} combining marks on one character`;
    case "cluster":
      return `must not join more than ${MAX_CODE_POINTS_PER_CHARACTER} code points into one character`;
  }
};

/** `textProblem` as a message, or undefined when `s` fits: what field checks need. */
export const textError = (s: string, limit: TextLimit): string | undefined => {
  const problem = textProblem(s, limit);
  return problem ? textProblemMessage(problem, limit) : undefined;
};

/** The same as a field error list, for the services' validators. */
export const checkText = (path: string, s: string | undefined, limit: TextLimit): Array<{ path: string; message: string }> => {
  if (s === undefined) return [];
  const message = textError(s, limit);
  return message ? [{ path, message }] : [];
};
