import fc from "fast-check";
import { compileMatcher } from "./index";
import { ALL_SOURCES } from "./matcher-test-support";
import { referenceMatch } from "./reference-test-support";
import type { MatchablePost, MatcherKeyword } from "./types";

// The compiled matcher must give exactly what the plain reference gives. Random strings would almost
// never contain a keyword, so texts are built from the keywords' own phrases, their case, accent and
// decomposed variants, and the characters that sit on boundaries (spaces, punctuation, sigils, marks,
// CJK, emoji, lone surrogates): matches, near misses and boundary cases are all frequent.

const PHRASES = [
  "acme",
  "Acme Cloud",
  "acme  cloud",
  "café",
  "CAFE",
  "node.js",
  "C++",
  "AT&T",
  "#acme",
  "@acme",
  "$ACME",
  "東京",
  "京",
  "タワー",
  "ไทย",
  "मुंबई",
  "Москва",
  "αθήνα",
  "ΟΔΟΣ",
  "🚀",
  "e\u0301",
  "a b",
  "İstanbul",
  "straße",
  "x",
  "𝐀b",
  "한국",
  "\ud83d",
  "Việt",
  "ê\u0323",
  "ปู่",
];

const STRIP = /[\u0300-\u036f]/g;
const variantsOf = (p: string): string[] => [p, p.toUpperCase(), p.toLowerCase(), p.normalize("NFC"), p.normalize("NFD"), p.normalize("NFD").replace(STRIP, "")];
const VARIANTS = [...new Set(PHRASES.flatMap((p) => variantsOf(p)))];

const CONFUSERS = [
  " ",
  "  ",
  "\t",
  "\n",
  "\u00a0",
  ".",
  ",",
  "-",
  "'",
  "_",
  "#",
  "@",
  "$",
  "+",
  "s",
  "x",
  "é",
  "E",
  "\u0301",
  " \u0301 ",
  "\u0308",
  "\ufe0f",
  "❤",
  "😀",
  "東",
  "タ",
  "ー",
  "ไ",
  "ि",
  "ς",
  "Σ",
  "ß",
  "𝐀",
  "\ud83d",
  "\ude80",
  "İ",
  "1",
  // Marks that canonical ordering moves (dot below is class 220, circumflex 230, Thai tone 107 after
  // vowel 103), a precomposed letter with a mark, conjoining jamo.
  "\u0323",
  "\u0302",
  "ê",
  "\u0e48",
  "\u0e39",
  "\u1100",
  "\u1161",
];

/** Texts mixing the keywords' own phrases (and their variants) with other phrases and boundary characters. */
const textArb = (own: readonly string[]) =>
  fc
    .array(
      fc.oneof(
        { arbitrary: fc.constantFrom(...new Set(own.flatMap(variantsOf))), weight: 2 },
        { arbitrary: fc.constantFrom(...VARIANTS), weight: 1 },
        { arbitrary: fc.constantFrom(...CONFUSERS), weight: 3 },
      ),
      { maxLength: 24 },
    )
    .map((parts) => parts.join(""));

const phraseArb = fc
  .tuple(fc.constantFrom("", " ", "\t"), fc.constantFrom(...PHRASES, ...VARIANTS), fc.constantFrom("", " ", "\n "))
  .map(([before, phrase, after]) => before + phrase + after);

const rarely = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { freq: 4, nil: undefined });

const filtersArb = fc.record({
  languages: rarely(fc.subarray(["en", "fr", "ja"], { minLength: 1 })),
  minFollowers: rarely(fc.constantFrom(0, 100)),
  excludeAuthors: rarely(fc.subarray(["@Spammer", "u2", "fan"], { minLength: 1 })),
  subreddits: rarely(fc.subarray(["node", "javascript"], { minLength: 1 })),
  youtubeChannels: rarely(fc.subarray(["UCabc", "@AcmeTV"], { minLength: 1 })),
  allOf: rarely(fc.array(phraseArb, { minLength: 1, maxLength: 2 })),
});

const keywordsArb = fc
  .array(
    fc.record({
      value: phraseArb,
      aliases: fc.array(phraseArb, { maxLength: 2 }),
      excludedTerms: fc.oneof({ arbitrary: fc.constant([]), weight: 3 }, { arbitrary: fc.array(phraseArb, { minLength: 1, maxLength: 2 }), weight: 1 }),
      caseSensitive: fc.boolean(),
      sources: fc.oneof({ arbitrary: fc.constant(ALL_SOURCES), weight: 3 }, { arbitrary: fc.subarray([...ALL_SOURCES]), weight: 1 }),
      filters: fc.oneof({ arbitrary: fc.constant({}), weight: 2 }, { arbitrary: filtersArb, weight: 1 }),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((list) => list.map((k, i): MatcherKeyword => ({ id: `kw_${i}`, groupId: `kwg_${i % 2}`, ...k })));

const postArb = (own: readonly string[]) =>
  fc.record(
    {
      source: fc.constantFrom(...ALL_SOURCES),
      text: textArb(own),
      title: textArb(own),
      lang: fc.constantFrom("en", "FR", "ja-JP", ""),
      author: fc.record(
        { id: fc.constantFrom("u1", "u2"), handle: fc.constantFrom("@fan", "SPAMMER", "spammer", ""), followers: fc.constantFrom(0, 99, 100, 5000) },
        { requiredKeys: ["id", "handle"] },
      ),
      url: fc.constantFrom("https://www.reddit.com/r/Node/comments/x1/acme/", "https://x.com/acme/status/1"),
      subreddit: fc.constantFrom("node", "r/JavaScript", ""),
      channelId: fc.constantFrom("UCabc", "UCzzz"),
      channelHandle: fc.constantFrom("@acmetv", "AcmeTV", "@other"),
    },
    { requiredKeys: ["source", "text", "author"] },
  ) as fc.Arbitrary<MatchablePost>;

const phrasesOf = (k: MatcherKeyword): string[] => [k.value, ...k.aliases, ...k.excludedTerms, ...(k.filters.allOf ?? [])];

const scenarioArb = keywordsArb.chain((keywords) =>
  fc.record({ keywords: fc.constant(keywords), posts: fc.array(postArb(keywords.flatMap(phrasesOf)), { minLength: 1, maxLength: 3 }) }),
);

describe("compileMatcher agrees with the reference", () => {
  it("gives the reference's hits for keyword sets and posts built from their phrases", () => {
    let hitsSeen = 0;
    fc.assert(
      fc.property(scenarioArb, ({ keywords, posts }) => {
        const matcher = compileMatcher(keywords);
        for (const post of posts) {
          const hits = matcher.match(post);
          expect(hits).toEqual(referenceMatch(keywords, post));
          hitsSeen += hits.length;
        }
      }),
      { seed: 20261123, numRuns: 600 },
    );
    // The generators must produce matches, not only misses, or the comparison proves little.
    expect(hitsSeen).toBeGreaterThan(600);
  });

  it("gives the reference's hits for arbitrary Unicode, keywords cut from the text itself", () => {
    const caseArb = fc
      .tuple(fc.string({ unit: "binary", maxLength: 30 }), fc.array(fc.tuple(fc.nat(), fc.nat(6), fc.boolean()), { minLength: 1, maxLength: 4 }))
      .map(([text, cuts]) => ({
        text,
        keywords: cuts.map(([at, length, caseSensitive], i): MatcherKeyword => {
          const from = text.length === 0 ? 0 : at % text.length;
          return { id: `kw_${i}`, groupId: "kwg", value: text.slice(from, from + length), aliases: [], excludedTerms: [], caseSensitive, sources: ALL_SOURCES, filters: {} };
        }),
      }));
    fc.assert(
      fc.property(caseArb, ({ text, keywords }) => {
        const post: MatchablePost = { source: "x", text, author: { id: "u1", handle: "fan" } };
        expect(compileMatcher(keywords).match(post)).toEqual(referenceMatch(keywords, post));
      }),
      { seed: 20261123, numRuns: 400 },
    );
  });
});
