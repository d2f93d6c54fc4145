import { foldWord } from "../words";

// What the relevance model looks at in a mention: the words and word pairs near each match (the context
// that tells "Linear, the issue tracker" from "linear algebra"), how the matched words are written, the
// source, the author, the domains the post links to, and the keyword. Names are readable because they are
// what a mention's `reasons` show; the model stores them hashed (model.ts).

export interface RelevanceInput {
  title?: string;
  text: string;
  source: string;
  /** The author's folded handle. */
  authorKey: string;
  keywordIds: readonly string[];
  matches: ReadonlyArray<{ keywordId: string; term: string; field: "title" | "text"; start: number; end: number }>;
}

/** Words each side of a match that count as its context. */
export const CONTEXT_WINDOW = 6;
/** Matches whose context is read: a post naming the brand ten times says nothing more the tenth time. */
const MAX_MATCHES = 4;

const WORD_RUN = /[\p{L}\p{N}\p{M}]+/gu;
const LINK = /https?:\/\/([^\s/?#]+)/giu;

// Words too common to say anything about a topic: they would only add noise to a few dozen ratings.
const STOP_WORDS = new Set(
  ("a an and are as at be but by for from has have i if in is it its me my of on or our so that the their them " +
    "there they this to was we were what when which who will with you your just not no do does did can its it's im " +
    "been being than then too very also about into out up get got").split(" "),
);

interface Token {
  word: string;
  start: number;
  end: number;
}

// Links are read as domains (below), not as words: blanked to the same length so offsets still hold.
const URL_SPAN = /https?:\/\/\S+/giu;
const HTTP = /http/i;
// Hoisted: this runs for every ingested mention, and a literal inside a function is a new object each call.
const NON_LETTER = /[^\p{L}]/gu;
const SENTENCE_END = /[.!?:]$/u;
const NON_WORD_CHAR = /[^\p{L}\p{N}]/gu;

const tokensOf = (text: string): Token[] => {
  const tokens: Token[] = [];
  // Most posts hold no link, and blanking copies the text.
  const read = HTTP.test(text) ? text.replace(URL_SPAN, (u) => " ".repeat(u.length)) : text;
  for (const m of read.matchAll(WORD_RUN)) {
    const word = foldWord(m[0]);
    if (word) tokens.push({ word, start: m.index, end: m.index + m[0].length });
  }
  return tokens;
};

/** How the matched words are written: a capitalized word mid-sentence reads as a name, a lower-case one as a common word. */
const caseOf = (fieldText: string, start: number, end: number): string => {
  const surface = fieldText.slice(start, end);
  const letters = surface.replace(NON_LETTER, "");
  if (!letters) return "other";
  if (letters.length > 1 && letters === letters.toUpperCase()) return "upper";
  if (letters === letters.toLowerCase()) return "lower";
  const before = fieldText.slice(0, start).trimEnd();
  if (before === "" || SENTENCE_END.test(before)) return "sentence-start";
  return "proper";
};

/** A link's host without `www.`, lower case. */
export const domainOf = (host: string): string => host.toLowerCase().replace(/^www\./u, "").replace(/[.:]+$/u, "");

/**
 * Where a feature goes as it is found: its kind and one or two parts, named `kind:first` or
 * `kind:first second`. Scoring hashes the parts without building names (score.ts); featuresOf names them.
 */
export type FeatureSink = (kind: FeatureKind, first: string, second?: string) => void;
export type FeatureKind = "source" | "author" | "keyword" | "case" | "word" | "pair" | "domain";

export const featureName = (kind: FeatureKind, first: string, second?: string): string =>
  second === undefined ? `${kind}:${first}` : `${kind}:${first} ${second}`;

/** The mention's features, each once, in a stable order. */
export const featuresOf = (input: RelevanceInput): string[] => {
  const features = new Set<string>();
  visitFeatures(input, (kind, first, second) => features.add(featureName(kind, first, second)));
  return [...features];
};

/** Hands the mention's features to `add` in featuresOf's order, possibly more than once each. */
export const visitFeatures = (input: RelevanceInput, add: FeatureSink): void => {
  add("source", input.source);
  if (input.authorKey) add("author", input.authorKey);
  for (const k of input.keywordIds) add("keyword", k);
  const fields = { title: input.title ?? "", text: input.text };
  const tokens = { title: tokensOf(fields.title), text: tokensOf(fields.text) };
  const termKeys = new Set<string>();
  const matchCount = Math.min(input.matches.length, MAX_MATCHES);
  for (let mi = 0; mi < matchCount; mi += 1) {
    const match = input.matches[mi]!;
    const fieldTokens = tokens[match.field];
    const inside = (t: Token) => t.start >= match.start && t.end <= match.end;
    for (const t of fieldTokens) if (inside(t)) termKeys.add(t.word);
    add("case", caseOf(fields[match.field], match.start, match.end));
    const first = fieldTokens.findIndex((t) => t.end > match.start);
    if (first < 0) continue;
    let last = first;
    while (last + 1 < fieldTokens.length && fieldTokens[last + 1]!.start < match.end) last += 1;
    const before = fieldTokens.slice(Math.max(0, first - CONTEXT_WINDOW), first);
    const after = fieldTokens.slice(last + 1, last + 1 + CONTEXT_WINDOW);
    for (const side of [before, after]) {
      side.forEach((t, i) => {
        // The keyword's own words say nothing: every mention has them.
        if (!STOP_WORDS.has(t.word) && t.word.length > 1 && !termKeys.has(t.word)) add("word", t.word);
        const next = side[i + 1];
        if (next) add("pair", t.word, next.word);
      });
    }
    // The words right beside the match, with their side: "the linear" and "linear algebra" differ most here.
    if (before.length > 0) add("pair", before.at(-1)!.word, "_");
    if (after.length > 0) add("pair", "_", after[0]!.word);
  }
  for (const field of [fields.title, fields.text]) {
    if (!HTTP.test(field)) continue;
    for (const m of field.matchAll(LINK)) {
      const domain = domainOf(m[1]!);
      add("domain", domain);
      const bare = domain.replace(NON_WORD_CHAR, "");
      for (const w of termKeys) {
        if (w.length > 2 && bare.includes(w)) {
          add("domain", "names-keyword");
          break;
        }
      }
    }
  }
};
