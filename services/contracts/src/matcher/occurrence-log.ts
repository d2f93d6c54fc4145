import type { OccurrenceSink } from "./phrase-scan";
import { MAX_MATCHES_PER_KEYWORD } from "./types";

// The phrase occurrences of the post being matched, kept per phrase in flat arrays that live as long as
// the matcher. Starting a new post bumps an epoch instead of clearing anything, so a post costs only
// what it notes.

const NONE = -1;

export class OccurrenceLog implements OccurrenceSink {
  private epoch = 0;
  private readonly phraseEpoch: Int32Array;
  private readonly phraseCount: Int32Array;
  private readonly phraseHead: Int32Array;
  private readonly phraseTail: Int32Array;
  // Small to start with and grown by doubling: a matcher lives as long as its project, most posts note little.
  private seen = new Int32Array(8);
  /** Phrases that occurred in this post, in the order first seen: seenPhrase(0 .. seenCount - 1). */
  seenCount = 0;
  private field = new Uint8Array(16);
  private start = new Int32Array(16);
  private end = new Int32Array(16);
  private next = new Int32Array(16);
  private count = 0;

  constructor(phrases: number) {
    this.phraseEpoch = new Int32Array(phrases);
    this.phraseCount = new Int32Array(phrases);
    this.phraseHead = new Int32Array(phrases);
    this.phraseTail = new Int32Array(phrases);
  }

  /** Forgets the previous post. */
  reset(): void {
    if (this.epoch === 0x7fffffff) {
      this.epoch = 0;
      this.phraseEpoch.fill(0);
    }
    this.epoch++;
    this.seenCount = 0;
    this.count = 0;
  }

  note(phrase: number, field: number, start: number, end: number): void {
    if (this.phraseEpoch[phrase] !== this.epoch) {
      this.phraseEpoch[phrase] = this.epoch;
      this.phraseCount[phrase] = 0;
      this.phraseHead[phrase] = NONE;
      if (this.seenCount === this.seen.length) this.seen = grown(this.seen, this.seenCount);
      this.seen[this.seenCount++] = phrase;
    }
    // A phrase's occurrences arrive in report order (title first, then by start) and it occurs at most
    // once per start, so its first MAX_MATCHES_PER_KEYWORD occurrences are all a keyword can report.
    const count = this.phraseCount[phrase] as number;
    if (count >= MAX_MATCHES_PER_KEYWORD) return;
    this.phraseCount[phrase] = count + 1;
    const occ = this.count++;
    if (occ === this.start.length) this.grow();
    this.field[occ] = field;
    this.start[occ] = start;
    this.end[occ] = end;
    this.next[occ] = NONE;
    if (count === 0) this.phraseHead[phrase] = occ;
    else this.next[this.phraseTail[phrase] as number] = occ;
    this.phraseTail[phrase] = occ;
  }

  seenPhrase(index: number): number {
    return this.seen[index] as number;
  }

  occurred(phrase: number): boolean {
    return this.phraseEpoch[phrase] === this.epoch;
  }

  anyOccurred(phrases: readonly number[]): boolean {
    for (const p of phrases) if (this.phraseEpoch[p] === this.epoch) return true;
    return false;
  }

  allOccurred(phrases: readonly number[]): boolean {
    for (const p of phrases) if (this.phraseEpoch[p] !== this.epoch) return false;
    return true;
  }

  /** The phrase's first kept occurrence, or -1; then `nextOf` until -1. */
  firstOf(phrase: number): number {
    return this.phraseEpoch[phrase] === this.epoch ? (this.phraseHead[phrase] as number) : NONE;
  }

  nextOf(occ: number): number {
    return this.next[occ] as number;
  }

  fieldOf(occ: number): number {
    return this.field[occ] as number;
  }

  startOf(occ: number): number {
    return this.start[occ] as number;
  }

  endOf(occ: number): number {
    return this.end[occ] as number;
  }

  retainedBytes(): number {
    const perPhrase = this.phraseEpoch.byteLength + this.phraseCount.byteLength + this.phraseHead.byteLength + this.phraseTail.byteLength;
    return perPhrase + this.seen.byteLength + this.field.byteLength + this.start.byteLength + this.end.byteLength + this.next.byteLength;
  }

  private grow(): void {
    this.start = grown(this.start, this.count);
    this.end = grown(this.end, this.count);
    this.next = grown(this.next, this.count);
    const field = new Uint8Array(this.field.length * 2);
    field.set(this.field);
    this.field = field;
  }
}

const grown = (a: Int32Array, used: number): Int32Array<ArrayBuffer> => {
  const b = new Int32Array(a.length * 2);
  b.set(a.subarray(0, used));
  return b;
};
