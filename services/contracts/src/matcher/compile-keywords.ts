import { canonicalPhrase, collapseSpaces, exactUnits } from "./canonical";
import { PhraseTrieBuilder } from "./phrase-trie";
import { compilePostFilters, type PostFilters, sourceMask } from "./post-filters";
import type { MatcherKeyword } from "./types";

// Keywords as the matcher uses them: every phrase (term, excluded term, allOf) replaced by the id of
// its canonical form, shared by every keyword that has it, and added once to the folded or the exact
// trie by its case rule.

export interface CompiledTerm {
  /** As the keyword first wrote the phrase (value, then aliases), spaces collapsed: what a match reports. */
  term: string;
  phrase: number;
}

export interface CompiledKeyword {
  id: string;
  groupId: string;
  sources: number;
  terms: CompiledTerm[];
  excluded: number[];
  allOf: number[];
  filters: PostFilters | undefined;
}

export class PhraseTable {
  private readonly ids = new Map<string, number>();
  readonly folded = new PhraseTrieBuilder(true);
  readonly exact = new PhraseTrieBuilder(false);
  /** Per phrase, the keywords that have it as a term, in keyword order. */
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
      if (caseSensitive) this.exact.add(exactUnits(units), id);
      else this.folded.add(units, id);
    }
    return id;
  }

  get size(): number {
    return this.termOf.length;
  }
}

const strings = (list: readonly string[] | undefined): string[] => (Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : []);

export const compileKeyword = (k: MatcherKeyword, index: number, phrases: PhraseTable): CompiledKeyword => {
  const exact = k.caseSensitive === true;
  const terms: CompiledTerm[] = [];
  // Terms that are one phrase once canonical match the same spans: the first written stands for all.
  const taken = new Set<number>();
  for (const raw of strings([k.value, ...strings(k.aliases)])) {
    const term = collapseSpaces(raw);
    const phrase = phrases.idOf(term, exact);
    if (phrase < 0 || taken.has(phrase)) continue;
    taken.add(phrase);
    terms.push({ term, phrase });
    const keywords = phrases.termOf[phrase] as number[];
    if (keywords[keywords.length - 1] !== index) keywords.push(index);
  }
  const ids = (list: readonly string[] | undefined): number[] => strings(list).map((p) => phrases.idOf(p, exact)).filter((id) => id >= 0);
  return {
    id: k.id,
    groupId: k.groupId,
    sources: sourceMask(strings(k.sources)),
    terms,
    excluded: ids(k.excludedTerms),
    allOf: ids(k.filters?.allOf),
    filters: compilePostFilters(k.filters),
  };
};
