import { classTable, classOf, FOLD_MANY, FOLD_MASK, FOLD_NONE, FOLD_ONE, foldedUnitOf, foldedUnitsOf, NO_SPACE, SPACE, WORD } from "./char-classes";

// A field (or a phrase) as the tries see it: one code unit per slot, folded or exact, every whitespace
// run reduced to one space, and for each unit where it came from in the original string. Phrases go
// through the same function as texts, so a phrase and the text it occurs in are always comparable.

/** First unit of the units its code point produced. */
export const CP_START = 1;
/** Last unit of the units its code point produced: a match may only end here. */
export const CP_END = 2;
/** A match may start here: the code point before it is not a word character, or one of the two is in a no-space script. */
export const START_OK = 4;
/** The code point that produced the unit is a word character. */
export const UNIT_WORD = 8;
/** The code point that produced the unit is in a no-space script. */
export const UNIT_NO_SPACE = 16;
/** The unit is a collapsed whitespace run. */
export const UNIT_SPACE = 32;

const HIGH_MIN = 0xd800;
const HIGH_MAX = 0xdbff;
const LOW_MIN = 0xdc00;
const LOW_MAX = 0xdfff;

export class UnitStream {
  units = new Uint16Array(256);
  origins = new Int32Array(256);
  flags = new Uint8Array(256);
  length = 0;
  /** Length of the original string: the end of a match that reaches the last unit. */
  sourceLength = 0;

  private reserve(capacity: number): void {
    if (capacity <= this.units.length) return;
    let size = this.units.length;
    while (size < capacity) size *= 2;
    const units = new Uint16Array(size);
    const origins = new Int32Array(size);
    const flags = new Uint8Array(size);
    units.set(this.units.subarray(0, this.length));
    origins.set(this.origins.subarray(0, this.length));
    flags.set(this.flags.subarray(0, this.length));
    this.units = units;
    this.origins = origins;
    this.flags = flags;
  }

  /** Fills the stream from `text`, folding case and accents when `fold` is true. */
  fill(text: string, fold: boolean): void {
    const size = text.length;
    this.length = 0;
    this.sourceLength = size;
    this.reserve(size + 8);
    const table = classTable();
    let units = this.units;
    let origins = this.origins;
    let flags = this.flags;
    let n = 0;
    let prevWord = false;
    let prevNoSpace = false;
    let inSpace = false;
    for (let i = 0; i < size; ) {
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
      const word = (c & WORD) !== 0;
      const noSpace = (c & NO_SPACE) !== 0;
      if ((c & SPACE) !== 0) {
        if (!inSpace) {
          units[n] = 0x20;
          origins[n] = i;
          flags[n] = CP_START | CP_END | UNIT_SPACE;
          n++;
          inSpace = true;
        }
      } else {
        const kind = fold ? c & FOLD_MASK : 0;
        if (kind !== FOLD_NONE) {
          const own = (word ? UNIT_WORD : 0) | (noSpace ? UNIT_NO_SPACE : 0);
          const first = i === 0 || !prevWord || prevNoSpace || noSpace ? own | CP_START | START_OK : own | CP_START;
          if (kind === FOLD_ONE) {
            units[n] = foldedUnitOf(cp);
            origins[n] = i;
            flags[n] = first | CP_END;
            n++;
          } else if (kind === FOLD_MANY) {
            const many = foldedUnitsOf(cp);
            this.length = n;
            this.reserve(n + many.length + (size - i) + 8);
            units = this.units;
            origins = this.origins;
            flags = this.flags;
            for (let k = 0; k < many.length; k++) {
              units[n] = many.charCodeAt(k);
              origins[n] = i;
              flags[n] = k === 0 ? first : own;
              n++;
            }
            flags[n - 1] = (flags[n - 1] as number) | CP_END;
          } else if (width === 1) {
            units[n] = cp;
            origins[n] = i;
            flags[n] = first | CP_END;
            n++;
          } else {
            units[n] = text.charCodeAt(i);
            origins[n] = i;
            flags[n] = first;
            units[n + 1] = text.charCodeAt(i + 1);
            origins[n + 1] = i;
            flags[n + 1] = own | CP_END;
            n += 2;
          }
          inSpace = false;
        }
      }
      prevWord = word;
      prevNoSpace = noSpace;
      i += width;
    }
    this.length = n;
  }

  /** The units as a string, without a leading or trailing space: the canonical form of a phrase. */
  trimmedText(): string {
    let from = 0;
    let to = this.length;
    while (from < to && ((this.flags[from] as number) & UNIT_SPACE) !== 0) from++;
    while (to > from && ((this.flags[to - 1] as number) & UNIT_SPACE) !== 0) to--;
    let out = "";
    // Chunks keep String.fromCharCode's argument count far below the engine's limit.
    for (let k = from; k < to; k += 4096) out += String.fromCharCode(...this.units.subarray(k, Math.min(to, k + 4096)));
    return out;
  }
}
