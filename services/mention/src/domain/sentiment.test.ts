import { scoreSentiment } from "./sentiment";

describe("lexicon sentiment", () => {
  it.each([
    ["I love the new Acme phone, it is amazing", "positive"],
    ["Acme support was helpful and fast", "positive"],
    ["The Acme app is broken again, terrible update", "negative"],
    ["Acme released version 2.0 today", "neutral"],
    ["", "neutral"],
    // A negation flips the next word of the lexicon within three words.
    ["Acme is not good", "negative"],
    ["Acme is not very good at all", "negative"],
    ["I don't hate it", "positive"],
    ["never had a problem with Acme", "positive"],
    ["no problems so far", "positive"],
    // Accents and case do not matter; a few common words of Spanish, French and German are known.
    ["ACME ES EXCELENTE", "positive"],
    ["Le service est nul", "negative"],
    ["Ce n'est pas bon", "negative"],
    ["C'est génial", "positive"],
    ["Das ist wirklich schlecht", "negative"],
    ["Das ist nicht schlecht", "positive"],
    ["Gracias Acme, muy bueno", "positive"],
    // Pictographs carry weight too.
    ["Acme 😍", "positive"],
    ["Acme 😡", "negative"],
  ])("scores %j as %s", (text, label) => {
    const s = scoreSentiment(text);
    expect(s.label).toBe(label);
    expect(s.method).toBe("lexicon");
    expect(s.score).toBeGreaterThanOrEqual(-1);
    expect(s.score).toBeLessThanOrEqual(1);
  });

  it("adds title and text, and a negation does not reach from the title into the text", () => {
    expect(scoreSentiment("Not", "great product").label).toBe("positive");
    const both = scoreSentiment("Great", "great").score;
    expect(both).toBeGreaterThan(scoreSentiment("great").score);
  });

  it("squashes long strings of praise or complaint below 1 in magnitude, symmetrically", () => {
    const up = scoreSentiment("amazing ".repeat(50)).score;
    const down = scoreSentiment("terrible ".repeat(50)).score;
    expect(up).toBeLessThanOrEqual(1);
    expect(up).toBeGreaterThan(0.99);
    expect(down).toBe(-up);
  });
});
