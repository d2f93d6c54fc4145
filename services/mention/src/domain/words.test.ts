import { MAX_WORD_LENGTH, queryWords, wordsOf } from "./words";

describe("mention words", () => {
  it("folds case and accents and keeps each word once, title and text together", () => {
    expect(wordsOf("Café Crème launch", "the CAFE is open, café!")).toEqual(["cafe", "creme", "launch", "the", "is", "open"]);
  });

  it("splits on punctuation, hashtags and handles, keeping digits and letters of any script", () => {
    expect(wordsOf("#Launch by @acme_corp: v2.0 — Über straße 東京タワー")).toEqual(["launch", "by", "acme", "corp", "v2", "0", "uber", "straße", "東京タワー"]);
  });

  it("leaves out runs too long to be searched for", () => {
    expect(wordsOf(`short ${"x".repeat(MAX_WORD_LENGTH + 1)} ${"y".repeat(MAX_WORD_LENGTH)}`)).toEqual(["short", "y".repeat(MAX_WORD_LENGTH)]);
  });

  it("folds a query the way stored words are folded, so a query matches the words it names", () => {
    const stored = new Set(wordsOf("Acme's NEW Café opens"));
    const q = queryWords("  café   NEW ");
    expect(q).toEqual(["cafe", "new"]);
    expect(q.every((w) => stored.has(w))).toBe(true);
    expect(queryWords("!!!")).toEqual([]);
  });
});
