import { FNV_OFFSET, fnvOn } from "../fnv";
import { wordsOf } from "../words";
import { domainOf } from "./features";

// What a project says about itself before anyone rates a mention, as weights on the same features the
// ratings teach: the words of its description and of its keywords' aliases near a match speak for
// relevance, the words of excluded phrases against it, a link to a domain named in an alias (or naming the
// keyword) for it, and a keyword written with a capital reads as a name, so a lower-case match leans away.
// Modest weights: a few ratings outweigh them.

export interface PriorContext {
  description: string;
  keywords: ReadonlyArray<{ value: string; aliases: readonly string[]; excludedTerms: readonly string[] }>;
}

export type PriorWeights = ReadonlyMap<string, number>;

const CONTEXT_WORD = 0.6;
const EXCLUDED_WORD = -0.9;
const NAMED_DOMAIN = 1.5;
const NAME_CASE = 0.5;

// Description words that say nothing about a topic ("we", "best", "platform" would match anything).
const VAGUE = new Set("a an and the of for to in on with by our we is are your you its it best all new more most one".split(" "));

const DOMAIN_LIKE = /^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+$/u;

export const priorOf = (context: PriorContext): PriorWeights => {
  const weights = new Map<string, number>();
  const termWords = new Set(context.keywords.flatMap((k) => wordsOf(k.value)));
  const add = (feature: string, weight: number) => weights.set(feature, (weights.get(feature) ?? 0) + weight);
  const contextWords = new Set([...wordsOf(context.description), ...context.keywords.flatMap((k) => k.aliases.flatMap((a) => wordsOf(a)))]);
  for (const w of contextWords) if (!termWords.has(w) && !VAGUE.has(w) && w.length > 2) add(`word:${w}`, CONTEXT_WORD);
  const excludedWords = new Set(context.keywords.flatMap((k) => k.excludedTerms.flatMap((e) => wordsOf(e))));
  for (const w of excludedWords) if (!termWords.has(w) && !VAGUE.has(w) && w.length > 1) weights.set(`word:${w}`, EXCLUDED_WORD);
  for (const k of context.keywords) for (const a of k.aliases) if (DOMAIN_LIKE.test(a.trim())) add(`domain:${domainOf(a.trim())}`, NAMED_DOMAIN);
  add("domain:names-keyword", NAMED_DOMAIN);
  if (context.keywords.some((k) => /^\p{Lu}/u.test(k.value.trim()))) {
    add("case:proper", NAME_CASE);
    add("case:upper", NAME_CASE / 2);
    add("case:lower", -NAME_CASE);
  }
  return weights;
};

/** A short stable fingerprint of the prior, part of the model version: a new description or alias rescores. */
export const priorFingerprint = (weights: PriorWeights): string => {
  let h = FNV_OFFSET;
  for (const [f, w] of [...weights].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) h = fnvOn(h, `${f}=${w.toFixed(3)};`);
  return (h >>> 0).toString(36);
};
