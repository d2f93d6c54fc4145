import { type CompiledKeyword, compileKeyword, PhraseTable } from "./compile-keywords";
import { OccurrenceLog } from "./occurrence-log";
import { scanField } from "./phrase-scan";
import { type FrozenTrie, trieBytes } from "./phrase-trie";
import { PostFacts, passesFilters, sourceBit } from "./post-filters";
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

// All phrases of all keywords go into two tries, one folded and one exact. A post is read once per
// field, walking both; each occurrence is noted against the phrase, not the keyword, so a phrase shared
// by many keywords costs one note. Only keywords with a term that occurred are then looked at.

const FIELDS: readonly MatchField[] = ["title", "text"];

class CompiledMatcher implements KeywordMatcher {
  readonly size: number;
  private readonly keywords: CompiledKeyword[];
  /** Undefined when no keyword needs that trie, so reading for it costs nothing. */
  private readonly folded: FrozenTrie | undefined;
  private readonly exact: FrozenTrie | undefined;
  /** Keywords that have the phrase as a term, flattened: termKeywords[termStart[p] .. termStart[p + 1]). */
  private readonly termStart: Int32Array;
  private readonly termKeywords: Int32Array;
  private readonly log: OccurrenceLog;
  /** Marks keywords already taken as candidates for the current post (the log's epoch idea). */
  private readonly candidateOf: Int32Array;
  private post = 0;

  constructor(input: readonly MatcherKeyword[]) {
    const phrases = new PhraseTable();
    this.keywords = input.map((k, i) => compileKeyword(k, i, phrases));
    this.size = this.keywords.length;
    this.folded = phrases.folded.freeze();
    this.exact = phrases.exact.freeze();
    const count = phrases.size;
    this.termStart = new Int32Array(count + 1);
    for (let p = 0; p < count; p++) this.termStart[p + 1] = (this.termStart[p] as number) + (phrases.termOf[p] as number[]).length;
    this.termKeywords = new Int32Array(this.termStart[count] as number);
    for (let p = 0; p < count; p++) this.termKeywords.set(phrases.termOf[p] as number[], this.termStart[p] as number);
    this.log = new OccurrenceLog(count);
    this.candidateOf = new Int32Array(this.keywords.length);
  }

  match(post: MatchablePost): KeywordHit[] {
    if (this.keywords.length === 0 || post === null || typeof post !== "object") return [];
    const source = sourceBit(post.source);
    if (source === 0) return [];
    this.log.reset();
    if (typeof post.title === "string" && post.title !== "") scanField(post.title, 0, this.folded, this.exact, this.log);
    if (typeof post.text === "string" && post.text !== "") scanField(post.text, 1, this.folded, this.exact, this.log);
    if (this.log.seenCount === 0) return [];
    const hits: KeywordHit[] = [];
    let facts: PostFacts | undefined;
    for (const k of this.candidates()) {
      const keyword = this.keywords[k] as CompiledKeyword;
      if ((keyword.sources & source) === 0) continue;
      if (this.log.anyOccurred(keyword.excluded) || !this.log.allOccurred(keyword.allOf)) continue;
      if (keyword.filters && !passesFilters(keyword.filters, (facts ??= new PostFacts(post)))) continue;
      hits.push({ keywordId: keyword.id, groupId: keyword.groupId, matches: this.matchesOf(keyword) });
    }
    return hits;
  }

  /** The bytes of typed arrays this matcher keeps for itself (tables shared by every matcher left out). */
  retainedBytes(): number {
    const tries = (this.folded ? trieBytes(this.folded) : 0) + (this.exact ? trieBytes(this.exact) : 0);
    return tries + this.termStart.byteLength + this.termKeywords.byteLength + this.candidateOf.byteLength + this.log.retainedBytes();
  }

  /** Keywords with a term that occurred, in keyword order. */
  private candidates(): number[] {
    if (this.post === 0x7fffffff) {
      this.post = 0;
      this.candidateOf.fill(0);
    }
    const post = ++this.post;
    const out: number[] = [];
    for (let s = 0; s < this.log.seenCount; s++) {
      const phrase = this.log.seenPhrase(s);
      const to = this.termStart[phrase + 1] as number;
      for (let t = this.termStart[phrase] as number; t < to; t++) {
        const k = this.termKeywords[t] as number;
        if (this.candidateOf[k] === post) continue;
        this.candidateOf[k] = post;
        out.push(k);
      }
    }
    return out.sort((a, b) => a - b);
  }

  private matchesOf(keyword: CompiledKeyword): TermMatch[] {
    const log = this.log;
    const matches: TermMatch[] = [];
    for (const { term, phrase } of keyword.terms) {
      for (let occ = log.firstOf(phrase); occ >= 0; occ = log.nextOf(occ)) {
        matches.push({ keywordId: keyword.id, term, field: FIELDS[log.fieldOf(occ)] as MatchField, start: log.startOf(occ), end: log.endOf(occ) });
      }
    }
    // One term's occurrences are already in order; several must be merged.
    if (keyword.terms.length > 1) matches.sort(compareTermMatches);
    if (matches.length > MAX_MATCHES_PER_KEYWORD) matches.length = MAX_MATCHES_PER_KEYWORD;
    return matches;
  }
}

/** Compiles the keywords into one matcher; recompile when they change, never per post. */
export const compileMatcher = (keywords: readonly MatcherKeyword[]): KeywordMatcher => new CompiledMatcher(keywords);

/** The typed-array bytes a compiled matcher keeps (what one project's matcher costs a service); 0 for any other matcher. */
export const retainedBytesOf = (matcher: KeywordMatcher): number => (matcher instanceof CompiledMatcher ? matcher.retainedBytes() : 0);
