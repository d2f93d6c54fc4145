import { compileMatcher } from "./index";
import { keyword, post } from "./matcher-test-support";
import { referenceMatch } from "./reference-test-support";

// Inputs come from a validated service, but the matcher must still never throw or spin on odd ones.

describe("compileMatcher on odd input", () => {
  it("matches nothing for empty values, aliases and texts", () => {
    const matcher = compileMatcher([keyword("", { aliases: [""], excludedTerms: [""] })]);
    expect(matcher.match(post(""))).toEqual([]);
    expect(matcher.match(post("anything", { title: "" }))).toEqual([]);
  });

  it("handles lone surrogates in keywords and texts", () => {
    const keywords = [keyword("\udc00acme"), keyword("acme\ud800", { id: "k2" }), keyword("acme", { id: "k3" })];
    const texts = ["\ud800", "\udc00", "acme\ud800", "\udc00acme", "\ud800\udc00acme", "acme\ud800\udc00", "\udc00\ud800acme"];
    const matcher = compileMatcher(keywords);
    for (const text of texts) expect(matcher.match(post(text))).toEqual(referenceMatch(keywords, post(text)));
  });

  it("scans a 100,000-character text and still reports 16 matches per keyword", () => {
    const text = "acme ".repeat(20_000);
    const keywords = [keyword("acme"), keyword("acme acme", { id: "k2" }), keyword("東京", { id: "k3" })];
    const hits = compileMatcher(keywords).match(post(text, { title: "東京".repeat(50_000) }));
    expect(hits.map((h) => [h.keywordId, h.matches.length])).toEqual([
      ["k", 16],
      ["k2", 16],
      ["k3", 16],
    ]);
    expect(hits[2]?.matches.every((m) => m.field === "title")).toBe(true);
  });

  it("keeps working after a text too large for its buffers, and on texts that expand when folded", () => {
    const matcher = compileMatcher([keyword("한국"), keyword("acme", { id: "k2" })]);
    expect(matcher.match(post("한".repeat(70_000) + " 한국 acme")).map((h) => h.keywordId)).toEqual(["k", "k2"]);
    expect(matcher.match(post("한국")).map((h) => h.matches)).toEqual([[{ keywordId: "k", term: "한국", field: "text", start: 0, end: 2 }]]);
  });

  it("ignores missing optional lists and unknown sources in a keyword", () => {
    const odd = { ...keyword("acme"), aliases: undefined, excludedTerms: undefined, sources: ["x", "myspace"], filters: undefined } as never;
    expect(compileMatcher([odd]).match(post("acme")).map((h) => h.keywordId)).toEqual(["k"]);
  });
});
