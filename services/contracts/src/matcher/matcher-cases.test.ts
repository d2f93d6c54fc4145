import { compileMatcher } from "./index";
import { keyword, post, readHits } from "./matcher-test-support";
import { referenceMatch } from "./reference-test-support";
import type { MatchablePost, MatcherKeyword } from "./types";

interface Case {
  name: string;
  keywords: MatcherKeyword[];
  post: MatchablePost;
  /** "<keywordId> <field> <matched text>" for every reported match, in order. */
  want: string[];
}

const k = keyword;
const p = post;
const ACUTE = "\u0301";

const cases: Case[] = [
  // Word boundaries, script by script
  { name: "Latin: a whole word matches, whatever its case", keywords: [k("acme")], post: p("Acme is great, ACME!"), want: ["k text Acme", "k text ACME"] },
  { name: "Latin: no match inside a longer word on either side", keywords: [k("acme")], post: p("acmes xacme acme2 2acme"), want: [] },
  { name: "Latin: an apostrophe or underscore ends the word", keywords: [k("acme")], post: p("acme's acme_corp"), want: ["k text acme", "k text acme"] },
  { name: "Cyrillic: Москва matches itself, not the inflected Москву", keywords: [k("москва")], post: p("Люблю Москву. Москва!"), want: ["k text Москва"] },
  { name: "Greek: accents and case fold", keywords: [k("αθήνα")], post: p("ΑΘΗΝΑ και Αθηνα, όχι Αθήνας"), want: ["k text ΑΘΗΝΑ", "k text Αθηνα"] },
  { name: "Greek: a final sigma matches a capital sigma", keywords: [k("ΟΔΟΣ")], post: p("η οδος"), want: ["k text οδος"] },
  { name: "Arabic: a word matches, a suffix of a word does not", keywords: [k("القاهرة"), k("قاهرة", { id: "k2" })], post: p("أحب القاهرة كثيرا"), want: ["k text القاهرة"] },
  { name: "Devanagari: a word matches between spaces", keywords: [k("मुंबई")], post: p("मैं मुंबई में हूँ"), want: ["k text मुंबई"] },
  { name: "Devanagari: vowel signs are part of the word and do not fold away", keywords: [k("क"), k("मुंब", { id: "k2" })], post: p("कि मुंबई"), want: [] },
  { name: "Han: no boundary needed next to ideographs", keywords: [k("東京"), k("京タ", { id: "k2" })], post: p("東京タワー"), want: ["k text 東京", "k2 text 京タ"] },
  { name: "Chinese: a brand inside a sentence without spaces", keywords: [k("华为")], post: p("我喜欢华为手机"), want: ["k text 华为"] },
  { name: "Thai: a word inside a run of Thai", keywords: [k("ไทย")], post: p("ประเทศไทยสวยมาก"), want: ["k text ไทย"] },
  { name: "Japanese next to Latin: no boundary needed after the Latin word", keywords: [k("acme")], post: p("acmeの新製品"), want: ["k text acme"] },
  { name: "Han: overlapping occurrences are all reported", keywords: [k("東東")], post: p("東東東"), want: ["k text 東東", "k text 東東"] },
  { name: "Hangul is written with spaces: a boundary is needed", keywords: [k("한국")], post: p("한국어 한국"), want: ["k text 한국"] },

  // Emoji and astral characters
  { name: "emoji: an emoji phrase needs no boundary after it, but one before it", keywords: [k("🚀")], post: p("go🚀 go 🚀today"), want: ["k text 🚀"] },
  { name: "emoji: an emoji is not a word character", keywords: [k("acme")], post: p("🚀acme🚀"), want: ["k text acme"] },
  { name: "emoji: a variation selector after an emoji is not part of a word", keywords: [k("acme")], post: p("❤️acme"), want: ["k text acme"] },
  { name: "astral letters (mathematical bold) are letters", keywords: [k("acme")], post: p("𝐀acme acme𝐀"), want: [] },
  { name: "astral ideographs (CJK extension B) need no boundary", keywords: [k("𠀀")], post: p("x𠀀y"), want: ["k text 𠀀"] },
  { name: "a lone surrogate is not a letter, and matches only itself, never half of a pair", keywords: [k("acme"), k("\ud83d", { id: "k2" })], post: p("\ud83dacme 😀"), want: ["k text acme", "k2 text \ud83d"] },

  // Accents
  { name: "accents fold both ways", keywords: [k("Café"), k("cafe", { id: "k2" })], post: p("cafe CAFÉ"), want: ["k text cafe", "k text CAFÉ", "k2 text cafe", "k2 text CAFÉ"] },
  { name: "a decomposed accent is inside the match", keywords: [k("café")], post: p(`un cafe${ACUTE} noir`), want: [`k text cafe${ACUTE}`] },
  { name: "a decomposed accent does not make a longer word", keywords: [k("cafe")], post: p(`cafe${ACUTE}s`), want: [] },
  {
    name: "case-sensitive keywords fold neither case nor accents, but a decomposed accent is the same letter",
    keywords: [k("Café", { caseSensitive: true })],
    post: p(`Cafe café CAFÉ Cafe${ACUTE} Café`),
    want: [`k text Cafe${ACUTE}`, "k text Café"],
  },
  { name: "case-sensitive: a precomposed keyword matches decomposed text", keywords: [k("Café", { caseSensitive: true })], post: p(`Cafe${ACUTE} au lait`), want: [`k text Cafe${ACUTE}`] },
  { name: "case-sensitive: a decomposed keyword matches precomposed text", keywords: [k(`Cafe${ACUTE}`, { caseSensitive: true })], post: p("Café au lait"), want: ["k text Café"] },
  {
    name: "case-sensitive: marks written in another order are the same letter",
    keywords: [k("Việt", { caseSensitive: true })],
    post: p("Vie\u0302\u0323t, Viê\u0323t, Vie\u0323\u0302t, Việt; not Viêt"),
    want: ["k text Vie\u0302\u0323t", "k text Viê\u0323t", "k text Vie\u0323\u0302t", "k text Việt"],
  },
  {
    name: "case-sensitive: Hangul syllables match their conjoining jamo, and a compatibility ideograph its unified one",
    keywords: [k("한국", { caseSensitive: true }), k("\uf900", { id: "k2", caseSensitive: true })],
    post: p(`${"한국".normalize("NFD")} 한국 \u8c48`),
    want: [`k text ${"한국".normalize("NFD")}`, "k text 한국", "k2 text \u8c48"],
  },
  {
    name: "case-sensitive: a canonical singleton is its target, a compatibility form is not",
    keywords: [k("Å", { caseSensitive: true }), k("fi", { id: "k2", caseSensitive: true })],
    post: p("\u212b ﬁ fi Ａ"),
    want: ["k text \u212b", "k2 text fi"],
  },
  {
    name: "case-sensitive: a match never starts or ends inside marks written out of canonical order",
    keywords: [k("ปู", { caseSensitive: true }), k("ปู่", { id: "k2", caseSensitive: true }), k("\u0e39", { id: "k3", caseSensitive: true })],
    post: p("ปู่ ป\u0e48\u0e39"),
    want: ["k text ปู", "k2 text ปู่", "k2 text ป\u0e48\u0e39", "k3 text \u0e39"],
  },
  { name: "Turkish dotted capital I folds to i", keywords: [k("istanbul")], post: p("İSTANBUL"), want: ["k text İSTANBUL"] },

  // Sigils and punctuation inside phrases
  { name: "#tag matches the tag, not the bare word", keywords: [k("#acme")], post: p("#Acme acme x#acme"), want: ["k text #Acme"] },
  { name: "a plain word matches inside #tag and @handle", keywords: [k("acme")], post: p("#acme @acme"), want: ["k text acme", "k text acme"] },
  { name: "@handle matches the handle, not a longer one", keywords: [k("@acme")], post: p("cc @ACME @acmecorp acme"), want: ["k text @ACME"] },
  { name: "$TICKER matches as written, not after a letter", keywords: [k("$ACME")], post: p("buy $acme, not US$ACME"), want: ["k text $acme"] },
  { name: "node.js matches, node.jsx does not", keywords: [k("node.js")], post: p("node.js rocks; node.jsx no"), want: ["k text node.js"] },
  { name: "C++ needs no boundary after its last +", keywords: [k("C++")], post: p("C++, C++11 and xC++"), want: ["k text C++", "k text C++"] },
  { name: "AT&T ends on a letter, so a boundary follows", keywords: [k("AT&T")], post: p("AT&T's network, AT&Tx"), want: ["k text AT&T"] },

  // Keyword rules
  {
    name: "an excluded term beats the value and the aliases",
    keywords: [k("acme", { aliases: ["acme corp"], excludedTerms: ["acme jobs"] })],
    post: p("acme jobs at acme corp"),
    want: [],
  },
  { name: "an excluded term in the title drops a match in the text", keywords: [k("acme", { excludedTerms: ["hiring"] })], post: p("acme", { title: "Hiring!" }), want: [] },
  { name: "an excluded term needs its own word boundaries", keywords: [k("acme", { excludedTerms: ["hire"] })], post: p("acme hired me"), want: ["k text acme"] },
  { name: "a case-sensitive keyword", keywords: [k("Apple", { caseSensitive: true })], post: p("apple pie, APPLE, Apple Watch"), want: ["k text Apple"] },
  { name: "a case-sensitive exclusion uses the keyword's case rule", keywords: [k("Apple", { caseSensitive: true, excludedTerms: ["Pie"] })], post: p("Apple pie"), want: ["k text Apple"] },
  { name: "allOf: every phrase must also appear", keywords: [k("acme", { filters: { allOf: ["launch", "cloud"] } })], post: p("acme cloud launch"), want: ["k text acme"] },
  { name: "allOf: one missing phrase drops the keyword", keywords: [k("acme", { filters: { allOf: ["launch", "cloud"] } })], post: p("acme launches in the cloud"), want: [] },
  { name: "an alias matches and is reported as written", keywords: [k("acme", { aliases: ["  Acme\tCloud "] })], post: p("the ACME cloud"), want: ["k text ACME", "k text ACME cloud"] },
  { name: "value and aliases equal once folded: one match per span", keywords: [k("Acme", { aliases: ["acme", "ACME"] })], post: p("acme"), want: ["k text acme"] },
  { name: "blank phrases never match and never exclude", keywords: [k("   ", { aliases: ["acme"], excludedTerms: [" "], filters: { allOf: ["\t"] } })], post: p("acme"), want: ["k text acme"] },

  // Whitespace
  { name: "any whitespace run matches one phrase space", keywords: [k("acme cloud")], post: p("acme   cloud, acme\n\tcloud, acme\u00a0cloud, acmecloud"), want: ["k text acme   cloud", "k text acme\n\tcloud", "k text acme\u00a0cloud"] },
  { name: "an accent that folds away does not split a whitespace run", keywords: [k("acme cloud")], post: p(`acme ${ACUTE} cloud`), want: [`k text acme ${ACUTE} cloud`] },
  { name: "a keyword's own whitespace is canonical", keywords: [k("  acme \n cloud ")], post: p("acme cloud"), want: ["k text acme cloud"] },

  // Sources and filters
  { name: "per-keyword sources: another source does not match", keywords: [k("acme", { sources: ["reddit"] })], post: p("acme"), want: [] },
  { name: "per-keyword sources: a listed source matches", keywords: [k("acme", { sources: ["reddit"] })], post: p("acme", { source: "reddit" }), want: ["k text acme"] },
  { name: "languages: a listed language matches", keywords: [k("acme", { filters: { languages: ["en", "fr"] } })], post: p("acme", { lang: "fr" }), want: ["k text acme"] },
  { name: "languages: region and case do not matter", keywords: [k("acme", { filters: { languages: ["en"] } })], post: p("acme", { lang: "EN-GB" }), want: ["k text acme"] },
  { name: "languages: another language does not match", keywords: [k("acme", { filters: { languages: ["en"] } })], post: p("acme", { lang: "de" }), want: [] },
  { name: "languages: a post without a language does not match", keywords: [k("acme", { filters: { languages: ["en"] } })], post: p("acme"), want: [] },
  { name: "minFollowers: enough followers match", keywords: [k("acme", { filters: { minFollowers: 100 } })], post: p("acme", { author: { id: "u", handle: "h", followers: 100 } }), want: ["k text acme"] },
  { name: "minFollowers: too few followers do not", keywords: [k("acme", { filters: { minFollowers: 100 } })], post: p("acme", { author: { id: "u", handle: "h", followers: 99 } }), want: [] },
  { name: "minFollowers: unknown followers do not", keywords: [k("acme", { filters: { minFollowers: 100 } })], post: p("acme"), want: [] },
  { name: "excludeAuthors: a handle, with or without @, in any case", keywords: [k("acme", { filters: { excludeAuthors: ["@Spammer"] } })], post: p("acme", { author: { id: "u9", handle: "SPAMMER" } }), want: [] },
  { name: "excludeAuthors: an author id", keywords: [k("acme", { filters: { excludeAuthors: ["u42"] } })], post: p("acme", { author: { id: "u42", handle: "@fine" } }), want: [] },
  { name: "excludeAuthors: other authors match", keywords: [k("acme", { filters: { excludeAuthors: ["@spammer", "u42"] } })], post: p("acme", { author: { id: "u1", handle: "@fan" } }), want: ["k text acme"] },
  { name: "subreddits: a listed subreddit, in any case", keywords: [k("acme", { filters: { subreddits: ["node"] } })], post: p("acme", { source: "reddit", subreddit: "Node" }), want: ["k text acme"] },
  { name: "subreddits: read from the permalink when absent", keywords: [k("acme", { filters: { subreddits: ["node"] } })], post: p("acme", { source: "reddit", url: "https://www.reddit.com/r/node/comments/abc/acme/" }), want: ["k text acme"] },
  { name: "subreddits: another subreddit does not match", keywords: [k("acme", { filters: { subreddits: ["node"] } })], post: p("acme", { source: "reddit", subreddit: "javascript" }), want: [] },
  { name: "subreddits: an unknown subreddit does not match", keywords: [k("acme", { filters: { subreddits: ["node"] } })], post: p("acme", { source: "reddit" }), want: [] },
  { name: "subreddits: other sources are not limited", keywords: [k("acme", { filters: { subreddits: ["node"] } })], post: p("acme", { source: "x" }), want: ["k text acme"] },
  { name: "youtubeChannels: a channel id", keywords: [k("acme", { filters: { youtubeChannels: ["UCabc", "@AcmeTV"] } })], post: p("acme", { source: "youtube", channelId: "UCabc" }), want: ["k text acme"] },
  { name: "youtubeChannels: a channel @handle, in any case", keywords: [k("acme", { filters: { youtubeChannels: ["UCabc", "@AcmeTV"] } })], post: p("acme", { source: "youtube", channelId: "UCzzz", channelHandle: "@acmetv" }), want: ["k text acme"] },
  { name: "youtubeChannels: another channel does not match", keywords: [k("acme", { filters: { youtubeChannels: ["UCabc", "@AcmeTV"] } })], post: p("acme", { source: "youtube", channelId: "UCzzz" }), want: [] },
  { name: "youtubeChannels: other sources are not limited", keywords: [k("acme", { filters: { youtubeChannels: ["UCabc"] } })], post: p("acme", { source: "linkedin" }), want: ["k text acme"] },

  // Several keywords, fields and order
  { name: "title matches come before text matches", keywords: [k("acme")], post: p("all about acme", { title: "Acme news" }), want: ["k title Acme", "k text acme"] },
  {
    name: "hits follow the order of the keywords, not of the text",
    keywords: [k("zeta", { id: "k1", groupId: "g1" }), k("alpha", { id: "k2", groupId: "g2" }), k("gamma", { id: "k3" })],
    post: p("alpha then zeta"),
    want: ["k1 text zeta", "k2 text alpha"],
  },
  {
    name: "one phrase shared by two keywords, excluded by one of them",
    keywords: [k("acme", { id: "k1" }), k("acme", { id: "k2", excludedTerms: ["cloud"] })],
    post: p("acme cloud"),
    want: ["k1 text acme"],
  },
];

describe("compileMatcher: named cases", () => {
  it.each(cases)("$name", ({ keywords, post: thePost, want }) => {
    const hits = compileMatcher(keywords).match(thePost);
    expect(readHits(hits, thePost)).toEqual(want);
    expect(hits).toEqual(referenceMatch(keywords, thePost));
  });
});

describe("compileMatcher: what a match reports", () => {
  it("reports UTF-16 offsets into the original title and text, title first", () => {
    const thePost = p("😀 Café and cafe\u0301", { title: "ACME: café" });
    const hits = compileMatcher([k("cafe", { id: "kw_1", groupId: "kwg_1", aliases: ["acme"] })]).match(thePost);
    expect(hits).toEqual([
      {
        keywordId: "kw_1",
        groupId: "kwg_1",
        matches: [
          { keywordId: "kw_1", term: "acme", field: "title", start: 0, end: 4 },
          { keywordId: "kw_1", term: "cafe", field: "title", start: 6, end: 10 },
          { keywordId: "kw_1", term: "cafe", field: "text", start: 3, end: 7 },
          { keywordId: "kw_1", term: "cafe", field: "text", start: 12, end: 17 },
        ],
      },
    ]);
  });

  it("reports one match per span for terms that are one phrase, under the first written of value and aliases", () => {
    const hits = compileMatcher([k("Acme", { aliases: ["acme", "ACME", "acme  cloud"] }), k("ACME", { id: "k2", aliases: ["Acme"] })]).match(p("acme cloud"));
    expect(hits.map((h) => h.matches)).toEqual([
      [
        { keywordId: "k", term: "Acme", field: "text", start: 0, end: 4 },
        { keywordId: "k", term: "acme cloud", field: "text", start: 0, end: 10 },
      ],
      [{ keywordId: "k2", term: "ACME", field: "text", start: 0, end: 4 }],
    ]);
  });

  it("reports at most 16 matches per keyword, the first ones", () => {
    const text = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? "acme" : "ACME Cloud")).join(" ");
    const [hit] = compileMatcher([k("acme", { aliases: ["acme cloud"] })]).match(p(text));
    expect(hit?.matches).toHaveLength(16);
    expect(hit?.matches).toEqual(referenceMatch([k("acme", { aliases: ["acme cloud"] })], p(text))[0]?.matches);
    expect(hit?.matches.slice(0, 3).map((m) => text.slice(m.start, m.end))).toEqual(["acme", "ACME", "ACME Cloud"]);
  });

  it("counts the keywords it was compiled from", () => {
    expect(compileMatcher([]).size).toBe(0);
    expect(compileMatcher([k("a"), k("a"), k(" ")]).size).toBe(3);
  });

  it("answers nothing for a post from an unknown source, an empty post or no keywords", () => {
    const matcher = compileMatcher([k("acme")]);
    expect(matcher.match(p("acme", { source: "myspace" as never }))).toEqual([]);
    expect(matcher.match(p(""))).toEqual([]);
    expect(compileMatcher([]).match(p("acme"))).toEqual([]);
  });

  it("does not carry state from one post to the next", () => {
    const matcher = compileMatcher([k("acme", { excludedTerms: ["jobs"] }), k("jobs", { id: "k2" })]);
    expect(readHits(matcher.match(p("acme jobs")), p("acme jobs"))).toEqual(["k2 text jobs"]);
    expect(readHits(matcher.match(p("acme")), p("acme"))).toEqual(["k text acme"]);
    expect(matcher.match(p("nothing here"))).toEqual([]);
  });
});
