import { canonicalPhrase, collapseSpaces } from "./index";

describe("canonical phrases", () => {
  it("trims and reduces every whitespace run to one space, keeping what was written", () => {
    expect(collapseSpaces("  Acme \t\n Cloud\u00a0 Inc ")).toBe("Acme Cloud Inc");
    expect(canonicalPhrase("  Acme \t\n Cloud ", true)).toBe("Acme Cloud");
  });

  it("folds case and accents when the keyword is not case-sensitive", () => {
    expect(canonicalPhrase("Café", false)).toBe("cafe");
    expect(canonicalPhrase("CAFE", false)).toBe("cafe");
    expect(canonicalPhrase("cafe\u0301", false)).toBe("cafe");
    expect(canonicalPhrase("ΟΔΟΣ", false)).toBe(canonicalPhrase("οδος", false));
    expect(canonicalPhrase("Café", true)).toBe("Café");
  });

  it("keeps the marks that belong to a script", () => {
    expect(canonicalPhrase("कि", false)).toBe("कि");
    expect(canonicalPhrase("ガ", false)).toBe("カ\u3099");
  });

  it("composes a case-sensitive phrase (NFC), so canonically equivalent phrases are one", () => {
    expect(canonicalPhrase("Cafe\u0301", true)).toBe("Caf\u00e9");
    expect(canonicalPhrase("Vie\u0323\u0302t", true)).toBe(canonicalPhrase("Vi\u00ea\u0323t", true));
    expect(canonicalPhrase("Vie\u0323\u0302t", true)).toBe("Vi\u1ec7t");
    expect(canonicalPhrase("\u1112\u1161\u11ab", true)).toBe("한");
  });

  it("makes duplicates equal: same canonical value and case rule", () => {
    const duplicate = (a: string, b: string, caseSensitive: boolean) => canonicalPhrase(a, caseSensitive) === canonicalPhrase(b, caseSensitive);
    expect(duplicate("Café", "Cafe\u0301", true)).toBe(true);
    expect(duplicate("Acme  Cloud", " acme cloud", false)).toBe(true);
    expect(duplicate("Acme Cloud", "acme cloud", true)).toBe(false);
    expect(duplicate("#acme", "acme", false)).toBe(false);
  });

  it("is empty for a phrase that can never match", () => {
    expect(canonicalPhrase(" \t ", false)).toBe("");
    expect(canonicalPhrase("\u0301", false)).toBe("");
    expect(canonicalPhrase("", true)).toBe("");
  });
});
