import { canonicalPhrase, collapseSpaces } from "./canonical";
import { type OccurrenceSink, scanField } from "./phrase-scan";
import { type FrozenTrie, PhraseTrieBuilder } from "./phrase-trie";
import { compilePostFilters, PostFacts, passesFilters, type PostFilters, sourceBit, sourceMask } from "./post-filters";
import {
  compareTermMatches,
  type KeywordHit,
  type KeywordMatcher,
  MAX_MATCHES_PER_KEYWORD,
  type MatchablePost,
  type MatcherKeyword,
  type MatchField,
  type TermMatch,
} from "./types";

// All phrases of all keywords (terms, excluded terms, allOf) go into two tries, one for folded phrases
// and one for exact ones. A post is scanned once per field and trie; each phrase occurrence is noted
// against the phrase, not the keyword, so a phrase shared by many keywords costs one note. Only keywords
// with a term that occurred are then looked at.

interface CompiledTerm {
  term: string;
  phrase: number;
}

interface CompiledKeyword {
  id: string;
  groupId: string;
  sources: number;
  terms: CompiledTerm[];
  excluded: number[];
  allOf: number[];
  filters: PostFilters | undefined;
}

const FIELDS: readonly MatchField[] = ["title", "text"];

class PhraseTable {
  private readonly ids = new Map<string, number>();
  readonly folded = new PhraseTrieBuilder(true);
  readonly exact = new PhraseTrieBuilder(false);
  /** Per phrase, the keywords that have it as a term (filled while compiling). */
  readonly termOf: number[][] = [];

  /** The phrase's id, or -1 when it is empty once canonical (such a phrase never matches). */
  idOf(phrase: string, caseSensitive: boolean): number {
    const units = canonicalPhrase(phrase, caseSensitive);
    if (units === "") return -1;
    const key = (caseSensitive ? "E" : "F") + units;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.termOf.length;
      this.ids.set(key, id);
      this.termOf.push([]);
      (caseSensitive ? this.exact : this.folded).add(units, id);
    }
    return id;
  }

  get size(): number {
    return this.termOf.length;
  }
}

const compileKeyword = (k: MatcherKeyword, index: number, phrases: PhraseTable): CompiledKeyword => {
  const exact = k.caseSensitive === true;
  const terms: CompiledTerm[] = [];
  const written = new Set<string>();
  for (const raw of [k.value, ...(k.aliases ?? [])]) {
    if (typeof raw !== "string") continue;
    const term = collapseSpaces(raw);
    if (written.has(term)) continue;
    written.add(term);
    const phrase = phrases.idOf(term, exact);
    if (phrase < 0) continue;
    terms.push({ term, phrase });
    const keywords = phrases.termOf[phrase] as number[];
    if (keywords[keywords.length - 1] !== index) keywords.push(index);
  }
  const idsOf = (list: readonly string[] | undefined): number[] =>
    (list ?? []).filter((p): p is string => typeof p === "string").map((p) => phrases.idOf(p, exact)).filter((id) => id >= 0);
  return {
    id: k.id,
    groupId: k.groupId,
    sources: sourceMask(k.sources ?? []),
    terms,
    excluded: idsOf(k.excludedTerms),
    allOf: idsOf(k.filters?.allOf),
    filters: compilePostFilters(k.filters),
  };
};

class CompiledMatcher implements KeywordMatcher, OccurrenceSink {
  readonly size: number;
  private readonly keywords: CompiledKeyword[];
  /** Undefined when no keyword needs that trie, so its scan costs nothing. */
  private readonly folded: FrozenTrie | undefined;
  private readonly exact: FrozenTrie | undefined;
  /** Keywords that have the phrase as a term, flattened: termKeywords[termStart[p] .. termStart[p + 1]). */
  private readonly termStart: Int32Array;
  private readonly termKeywords: Int32Array;

  // Per-post state, reset by bumping `epoch` rather than clearing arrays.
  private epoch = 0;
  private readonly phraseEpoch: Int32Array;
  private readonly phraseCount: Int32Array;
  private readonly phraseHead: Int32Array;
  private readonly phraseTail: Int32Array;
  private readonly keywordEpoch: Int32Array;
  private seen = new Int32Array(64);
  private seenCount = 0;
  private occField = new Uint8Array(256);
  private occStart = new Int32Array(256);
  private occEnd = new Int32Array(256);
  private occNext = new Int32Array(256);
  private occCount = 0;

  constructor(input: readonly MatcherKeyword[]) {
    const phrases = new PhraseTable();
    this.keywords = input.map((k, i) => compileKeyword(k, i, phrases));
    this.size = this.keywords.length;
    const folded = phrases.folded.freeze();
    const exact = phrases.exact.freeze();
    this.folded = folded.phraseCount > 0 ? folded : undefined;
    this.exact = exact.phraseCount > 0 ? exact : undefined;
    const count = phrases.size;
    this.termStart = new Int32Array(count + 1);
    let total = 0;
    for (let p = 0; p < count; p++) {
      this.termStart[p] = total;
      total += (phrases.termOf[p] as number[]).length;
    }
    this.termStart[count] = total;
    this.termKeywords = new Int32Array(total);
    for (let p = 0; p < count; p++) this.termKeywords.set(phrases.termOf[p] as number[], this.termStart[p] as number);
    this.phraseEpoch = new Int32Array(count);
    this.phraseCount = new Int32Array(count);
    this.phraseHead = new Int32Array(count);
    this.phraseTail = new Int32Array(count);
    this.keywordEpoch = new Int32Array(this.keywords.length);
  }

  match(post: MatchablePost): KeywordHit[] {
    if (this.keywords.length === 0 || post === null || typeof post !== "object") return [];
    const postSource = sourceBit(post.source);
    if (postSource === 0) return [];
    this.nextEpoch();
    const title = typeof post.title === "string" ? post.title : "";
    const text = typeof post.text === "string" ? post.text : "";
    if (title !== "") scanField(title, 0, this.folded, this.exact, this);
    if (text !== "") scanField(text, 1, this.folded, this.exact, this);
    if (this.seenCount === 0) return [];
    return this.hits(post, postSource);
  }

  private nextEpoch(): void {
    if (this.epoch === 0x7fffffff) {
      this.epoch = 0;
      this.phraseEpoch.fill(0);
      this.keywordEpoch.fill(0);
    }
    this.epoch++;
    this.seenCount = 0;
    this.occCount = 0;
  }

  note(phrase: number, field: number, start: number, end: number): void {
    const epoch = this.epoch;
    if (this.phraseEpoch[phrase] !== epoch) {
      this.phraseEpoch[phrase] = epoch;
      this.phraseCount[phrase] = 0;
      this.phraseHead[phrase] = -1;
      if (this.seenCount === this.seen.length) this.seen = grow(this.seen, this.seenCount);
      this.seen[this.seenCount++] = phrase;
    }
    // Occurrences of one phrase arrive in report order (title first, then by start) and a phrase occurs
    // at most once per start, so its first MAX_MATCHES_PER_KEYWORD occurrences are all a keyword can report.
    const count = this.phraseCount[phrase] as number;
    if (count >= MAX_MATCHES_PER_KEYWORD) return;
    this.phraseCount[phrase] = count + 1;
    const occ = this.occCount++;
    if (occ === this.occStart.length) this.growOccurrences();
    this.occField[occ] = field;
    this.occStart[occ] = start;
    this.occEnd[occ] = end;
    this.occNext[occ] = -1;
    if (count === 0) this.phraseHead[phrase] = occ;
    else this.occNext[this.phraseTail[phrase] as number] = occ;
    this.phraseTail[phrase] = occ;
  }

  private growOccurrences(): void {
    const n = this.occCount - 1;
    this.occStart = grow(this.occStart, n);
    this.occEnd = grow(this.occEnd, n);
    this.occNext = grow(this.occNext, n);
    const field = new Uint8Array(this.occField.length * 2);
    field.set(this.occField);
    this.occField = field;
  }

  private hits(post: MatchablePost, postSource: number): KeywordHit[] {
    const epoch = this.epoch;
    const candidates: number[] = [];
    for (let s = 0; s < this.seenCount; s++) {
      const phrase = this.seen[s] as number;
      const to = this.termStart[phrase + 1] as number;
      for (let t = this.termStart[phrase] as number; t < to; t++) {
        const k = this.termKeywords[t] as number;
        if (this.keywordEpoch[k] === epoch) continue;
        this.keywordEpoch[k] = epoch;
        candidates.push(k);
      }
    }
    if (candidates.length === 0) return [];
    candidates.sort((a, b) => a - b);
    const hits: KeywordHit[] = [];
    let facts: PostFacts | undefined;
    for (const k of candidates) {
      const keyword = this.keywords[k] as CompiledKeyword;
      if ((keyword.sources & postSource) === 0) continue;
      if (this.anySeen(keyword.excluded) || !this.allSeen(keyword.allOf)) continue;
      if (keyword.filters && !passesFilters(keyword.filters, (facts ??= new PostFacts(post)))) continue;
      hits.push({ keywordId: keyword.id, groupId: keyword.groupId, matches: this.matchesOf(keyword) });
    }
    return hits;
  }

  private anySeen(phrases: readonly number[]): boolean {
    for (const p of phrases) if (this.phraseEpoch[p] === this.epoch) return true;
    return false;
  }

  private allSeen(phrases: readonly number[]): boolean {
    for (const p of phrases) if (this.phraseEpoch[p] !== this.epoch) return false;
    return true;
  }

  private matchesOf(keyword: CompiledKeyword): TermMatch[] {
    const matches: TermMatch[] = [];
    for (const { term, phrase } of keyword.terms) {
      if (this.phraseEpoch[phrase] !== this.epoch) continue;
      for (let occ = this.phraseHead[phrase] as number; occ >= 0; occ = this.occNext[occ] as number) {
        matches.push({
          keywordId: keyword.id,
          term,
          field: FIELDS[this.occField[occ] as number] as MatchField,
          start: this.occStart[occ] as number,
          end: this.occEnd[occ] as number,
        });
      }
    }
    if (keyword.terms.length > 1) matches.sort(compareTermMatches);
    if (matches.length > MAX_MATCHES_PER_KEYWORD) matches.length = MAX_MATCHES_PER_KEYWORD;
    return matches;
  }
}

const grow = (a: Int32Array, used: number): Int32Array<ArrayBuffer> => {
  const b = new Int32Array(a.length * 2);
  b.set(a.subarray(0, used));
  return b;
};

/** Compiles the keywords into one matcher; recompile when they change, never per post. */
export const compileMatcher = (keywords: readonly MatcherKeyword[]): KeywordMatcher => new CompiledMatcher(keywords);
