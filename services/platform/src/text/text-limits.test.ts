import fc from "fast-check";
import { countCharacters, MAX_CODE_POINTS_PER_CHARACTER, MAX_MARKS_PER_CHARACTER, textError, textProblem } from "./text-limits";

const ACUTE = "\u0301";
const ZWJ = "\u200d";
const graphemes = (s: string) => [...new Intl.Segmenter("en", { granularity: "grapheme" }).segment(s)].length;

describe("counting user-perceived characters", () => {
  it("counts an emoji, a ZWJ family, a skin tone and a keycap as one character each", () => {
    expect(countCharacters("📡")).toBe(1);
    expect(countCharacters("👨‍👩‍👧‍👦")).toBe(1);
    expect(countCharacters("👩🏽‍💻")).toBe(1);
    expect(countCharacters("👩🏻‍❤️‍💋‍👨🏼")).toBe(1);
    expect(countCharacters("#️⃣")).toBe(1);
  });

  it("counts a flag as one character and two flags as two, subdivision flags included", () => {
    expect(countCharacters("🇫🇷")).toBe(1);
    expect(countCharacters("🇫🇷🇩🇪")).toBe(2);
    expect(countCharacters("🏴󠁧󠁢󠁳󠁣󠁴󠁿")).toBe(1);
  });

  it("counts CJK, Hangul and decomposed accents as people read them", () => {
    expect(countCharacters("東京タワー")).toBe(5);
    expect(countCharacters("한국어")).toBe(3);
    expect(countCharacters(`cafe${ACUTE} au lait`)).toBe(12);
    expect(countCharacters("नमस्ते")).toBe(graphemes("नमस्ते"));
  });

  it("agrees with a full grapheme segmentation on mixed text", () => {
    const alphabet = ["a", "Z", " ", "-", "é", ACUTE, "\u0308", "東", "한", "\u1100", "\u1161", "😀", "👩", ZWJ, "🏽", "🇫", "🇷", "\r", "\n", "न", "्", "त", "\u0e33", "\ufe0f", "\u00ad", "가", "\u11a8", "\u0e01", "ｶ", "\uff9e", "\u0600", "\u200c", "\t", "\ud800"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }), (parts) => {
        const s = parts.join("");
        expect(countCharacters(s)).toBe(graphemes(s));
      }),
      { seed: 20261123, numRuns: 500 },
    );
  });

  it("stops counting one past the limit it is asked about", () => {
    expect(countCharacters("a".repeat(1000), 10)).toBe(11);
    expect(countCharacters("😀".repeat(1000), 10)).toBe(11);
  });
});

describe("text limits", () => {
  const name = { min: 1, max: 100 };

  it("accepts text up to the limit and refuses one character more, naming the limit", () => {
    expect(textError("x".repeat(100), name)).toBeUndefined();
    expect(textError("👨‍👩‍👧‍👦".repeat(40), name)).toBeUndefined();
    expect(textError("x".repeat(101), name)).toBe("must be 1 to 100 characters");
    expect(textError("東".repeat(101), { max: 100 })).toBe("must be at most 100 characters");
  });

  it("refuses empty and blank text when a minimum is set", () => {
    expect(textError("", name)).toBe("must be 1 to 100 characters");
    expect(textError(" \t\u3000", name)).toBe("must be 1 to 100 characters");
    expect(textError("", { max: 10 })).toBeUndefined();
  });

  it("refuses a letter carrying more combining marks than a script needs", () => {
    expect(textError(`a${ACUTE.repeat(MAX_MARKS_PER_CHARACTER)}`, name)).toBeUndefined();
    expect(textError(`a${ACUTE.repeat(MAX_MARKS_PER_CHARACTER + 1)}`, name)).toBe(
      `must not stack more than ${MAX_MARKS_PER_CHARACTER} combining marks on one character`,
    );
    expect(textProblem(`a${ACUTE.repeat(20_000)}`, name)).toEqual({ kind: "marks" });
    expect(textProblem(`a${ACUTE.repeat(20_000)}`, { max: 500 })).toEqual({ kind: "marks" });
  });

  it("refuses an endless ZWJ chain that would count as one character", () => {
    const chain = Array.from({ length: MAX_CODE_POINTS_PER_CHARACTER }, () => "👩").join(ZWJ);
    expect(countCharacters(chain)).toBe(1);
    expect(textProblem(chain, { max: 10, maxBytes: 1000 })).toEqual({ kind: "cluster" });
  });

  it("caps the UTF-8 bytes of a field", () => {
    expect(textError("é".repeat(10), { max: 10, maxBytes: 19 })).toBe("must be at most 19 bytes of UTF-8");
    expect(textError("é".repeat(10), { max: 10, maxBytes: 20 })).toBeUndefined();
  });

  it("decides a 300,000-character string from its head, never segmenting more than the limit can hold", () => {
    const segment = jest.spyOn(Intl.Segmenter.prototype, "segment");
    const byteLength = jest.spyOn(Buffer, "byteLength");
    try {
      expect(textProblem("a".repeat(300_000), name)).toEqual({ kind: "length" });
      expect(textProblem("東".repeat(300_000), name)).toEqual({ kind: "length" });
      expect(textProblem("😀".repeat(150_000), { max: 500 })).toEqual({ kind: "length" });
      expect(textProblem("a".repeat(2_000), name)).toEqual({ kind: "length" });
      // Longer in UTF-16 units than the byte allowance: refused before its bytes are even measured.
      expect(byteLength).not.toHaveBeenCalled();
      // Plain prose never reaches the segmenter; emoji runs do, but only their head.
      const longest = Math.max(0, ...segment.mock.calls.map(([s]) => s.length));
      expect(longest).toBeLessThanOrEqual(501 * 2 * MAX_CODE_POINTS_PER_CHARACTER);
    } finally {
      segment.mockRestore();
      byteLength.mockRestore();
    }
  });

  it("segments no more of a long run than the limit can hold", () => {
    const segment = jest.spyOn(Intl.Segmenter.prototype, "segment");
    try {
      expect(textProblem("😀".repeat(400), name)).toEqual({ kind: "length" });
      const longest = Math.max(...segment.mock.calls.map(([s]) => s.length));
      expect(longest).toBeLessThanOrEqual(101 * 2 * MAX_CODE_POINTS_PER_CHARACTER);
    } finally {
      segment.mockRestore();
    }
  });
});
