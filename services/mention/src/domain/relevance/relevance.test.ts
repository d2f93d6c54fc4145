import fc from "fast-check";
import { featuresOf, type RelevanceInput } from "./features";
import { labelOf } from "./label";
import { emptyCounts, hashFeature, learn, learnedBias, type LearnedCounts, learnedWeight, MAX_RATED_FEATURES } from "./model";
import { priorOf } from "./prior";
import { compileScorer } from "./score";
import { MAX_UNRATED_FEATURES, selfTrain } from "./semi-supervised";

// The model on its own: features, the prior, exact learning and unlearning, and determinism.

const mention = (text: string, more: Partial<RelevanceInput> = {}): RelevanceInput => {
  const at = text.toLowerCase().indexOf("linear");
  return {
    text,
    source: "x",
    authorKey: "someone",
    keywordIds: ["kw_1"],
    matches: at < 0 ? [] : [{ keywordId: "kw_1", term: "Linear", field: "text", start: at, end: at + 6 }],
    ...more,
  };
};

const noPrior = priorOf({ description: "", keywords: [{ value: "linear", aliases: [], excludedTerms: [] }] });

describe("relevance features", () => {
  it("reads the words and pairs near the match, how it is written, the source, author, keyword and linked domains", () => {
    const f = featuresOf(mention("We moved our sprint board to Linear yesterday, see https://www.linear.app/changelog"));
    expect(f).toEqual(expect.arrayContaining(["source:x", "author:someone", "keyword:kw_1", "word:sprint", "word:board", "word:yesterday", "pair:to _", "pair:_ yesterday", "case:proper", "domain:linear.app", "domain:names-keyword"]));
    expect(f).not.toContain("word:linear");
    expect(featuresOf(mention("solve the linear equation first"))).toEqual(expect.arrayContaining(["case:lower", "pair:_ equation", "word:equation"]));
  });
});

describe("relevance prior", () => {
  it("leans on the project's description, aliases and exclusions before any rating", () => {
    const prior = priorOf({
      description: "Linear is the issue tracker for software teams",
      keywords: [{ value: "Linear", aliases: ["linear.app"], excludedTerms: ["linear algebra"] }],
    });
    const scorer = compileScorer(emptyCounts(), 0, prior);
    const product = scorer.score(mention("Our software team tracks every issue in Linear now"));
    const maths = scorer.score(mention("homework on linear algebra is due, the algebra exam is brutal"));
    const neutral = compileScorer(emptyCounts(), 0, noPrior).score(mention("Linear"));
    expect(product.label).toBe("relevant");
    expect(maths.label).toBe("irrelevant");
    expect(neutral.label).toBe("uncertain");
    expect(product.reasons.map((r) => r.feature)).toEqual(expect.arrayContaining(["word:software"]));
    expect(maths.reasons[0]).toMatchObject({ feature: "word:algebra" });
    expect(maths.reasons[0]!.weight).toBeLessThan(0);
  });
});

describe("relevance learning", () => {
  it("moves a similar mention's score and names the feature that moved it", () => {
    let counts = emptyCounts();
    for (const t of ["Linear roadmap planning for the sprint", "sprint issues triaged in Linear today", "the sprint board in Linear is great"]) counts = learn(counts, featuresOf(mention(t)), true, 1);
    for (const t of ["plot the linear regression line", "a linear regression model overfits", "fit a linear regression quickly"]) counts = learn(counts, featuresOf(mention(t)), false, 1);
    const before = compileScorer(emptyCounts(), 0, noPrior);
    const after = compileScorer(counts, 6, noPrior);
    const similar = mention("planning the next sprint in Linear");
    const other = mention("is linear regression enough here");
    expect(after.score(similar).score).toBeGreaterThan(before.score(similar).score + 0.2);
    expect(after.score(other).score).toBeLessThan(before.score(other).score - 0.2);
    expect(after.score(similar).reasons.map((r) => r.feature)).toContain("word:sprint");
    expect(after.score(other).reasons.map((r) => r.feature)).toContain("word:regression");
    expect(after.model).not.toBe(before.model);
  });

  const text = fc.array(fc.constantFrom("linear", "Linear", "sprint", "algebra", "issue", "matrix", "board", "team", "the", "fit", "regression"), { minLength: 1, maxLength: 12 }).map((w) => w.join(" "));
  const ratings = fc.array(fc.tuple(text, fc.boolean()), { maxLength: 12 });

  it("is the same model whatever the order of the ratings, and taking a rating back forgets it exactly (seeded)", () => {
    fc.assert(
      fc.property(ratings, (rs) => {
        const forward = rs.reduce<LearnedCounts>((c, [t, r]) => learn(c, featuresOf(mention(t)), r, 1), emptyCounts());
        const backward = [...rs].reverse().reduce<LearnedCounts>((c, [t, r]) => learn(c, featuresOf(mention(t)), r, 1), emptyCounts());
        expect(backward).toEqual(forward);
        const undone = rs.reduce<LearnedCounts>((c, [t, r]) => learn(c, featuresOf(mention(t)), r, -1), forward);
        expect(undone).toEqual(emptyCounts());
      }),
      { seed: 32, numRuns: 80 },
    );
  });

  it("scores the same inputs the same way every time, within 0..1 with the label of its thresholds (seeded)", () => {
    fc.assert(
      fc.property(ratings, text, (rs, t) => {
        const counts = rs.reduce<LearnedCounts>((c, [x, r]) => learn(c, featuresOf(mention(x)), r, 1), emptyCounts());
        const a = compileScorer(counts, rs.length, noPrior).score(mention(t));
        const b = compileScorer(JSON.parse(JSON.stringify(counts)) as LearnedCounts, rs.length, noPrior).score(mention(t));
        expect(b).toEqual(a);
        expect(a.score).toBeGreaterThanOrEqual(0);
        expect(a.score).toBeLessThanOrEqual(1);
        expect(a.label).toBe(labelOf(a.score));
        expect(a.reasons.length).toBeLessThanOrEqual(5);
      }),
      { seed: 33, numRuns: 80 },
    );
  });

  it("scores a mention as its named features' prior and learned weights add up, reasons included (seeded)", () => {
    const prior = priorOf({
      description: "Linear, the issue tracker for software teams: sprint planning, roadmaps",
      keywords: [{ value: "Linear", aliases: ["linear.app"], excludedTerms: ["linear algebra", "regression"] }],
    });
    fc.assert(
      fc.property(ratings, ratings, text, (rs, soft, t) => {
        const counts = rs.reduce<LearnedCounts>((c, [x, r]) => learn(c, featuresOf(mention(x)), r, 1), emptyCounts());
        const unrated = soft.reduce<LearnedCounts>((c, [x, r]) => learn(c, featuresOf(mention(x)), r, 1), emptyCounts());
        const scorer = compileScorer(counts, rs.length, prior, unrated, 1);
        const input = mention(`${t} https://linear.app/x Linear sprint`, { title: "Linear roadmap" });
        // The meaning, written out: each distinct feature's prior weight plus its learned weight, in log-odds.
        let logit = learnedBias(counts);
        const moved = featuresOf(input)
          .map((feature) => ({ feature, weight: (prior.get(feature) ?? 0) + learnedWeight(counts, feature, unrated) }))
          .filter((r) => r.weight !== 0);
        for (const r of moved) logit += r.weight;
        const scored = scorer.score(input);
        expect(scored.score).toBe(Math.round((1 / (1 + Math.exp(-logit))) * 1e4) / 1e4);
        expect(scored).toEqual(scorer.scoreFeatures(featuresOf(input)));
        const top = [...moved].sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight) || (a.feature < b.feature ? -1 : 1)).slice(0, 5);
        expect(scored.reasons.map((r) => r.feature)).toEqual(top.map((r) => r.feature));
      }),
      { seed: 20261128, numRuns: 80 },
    );
  });
});

describe("learning from unrated mentions", () => {
  const rated = [
    ["our sprint board lives in Linear", true],
    ["solve the linear equation first", false],
  ] as const;
  const counts = rated.reduce<LearnedCounts>((c, [t, r]) => learn(c, featuresOf(mention(t)), r, 1), emptyCounts());
  // "backlog" and "matrix" were never rated: they only keep company with rated words in the unrated feed.
  const feed = [
    "sprint board and backlog in Linear", "the backlog view in Linear sprint", "Linear backlog grooming for the sprint board",
    "linear equation with a matrix", "a matrix and a linear equation", "linear equation homework, matrix again",
  ].map((t) => featuresOf(mention(t)));
  const train = (fs: ReadonlyArray<readonly string[]>) =>
    selfTrain(fs, (soft) => {
      const s = compileScorer(counts, 2, noPrior, soft);
      return (f) => s.scoreFeatures(f).score;
    });

  it("makes words that keep company with rated ones evidence, the same way every time", () => {
    const unrated = train(feed);
    const before = compileScorer(counts, 2, noPrior);
    const after = compileScorer(counts, 2, noPrior, unrated, 1);
    expect(after.score(mention("Linear backlog is tidy")).score).toBeGreaterThan(before.score(mention("Linear backlog is tidy")).score + 0.02);
    expect(after.score(mention("a matrix is linear")).score).toBeLessThan(before.score(mention("a matrix is linear")).score - 0.02);
    expect(after.model).toMatch(/\.u1$/);
    expect(train(feed)).toEqual(unrated);
    expect(train([])).toBeUndefined();
  });

  it("keeps a bounded number of features whatever the feed's size", () => {
    const big = Array.from({ length: 1200 }, (_, i) => featuresOf(mention(`Linear w${i % 3000} w${(i * 7) % 3001} w${(i * 13) % 2999} v${i % 1500} x${i % 2100}`)));
    expect(Object.keys(train(big)!.counts).length).toBeLessThanOrEqual(MAX_UNRATED_FEATURES);
  });
});

describe("the rated counts' size", () => {
  it("stays under the cap, dropping the rarest features the same way every time", () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `word:w${i}`);
    let counts = learn(emptyCounts(), ["word:common"], true, 1);
    counts = learn(counts, ["word:common"], true, 1);
    counts = learn(counts, many(MAX_RATED_FEATURES), false, 1);
    expect(Object.keys(counts.counts).length).toBeLessThanOrEqual(MAX_RATED_FEATURES);
    expect(counts.counts[hashFeature("word:common")]).toEqual([2, 0]);
    expect(learn(learn(emptyCounts(), ["word:common"], true, 1), [...many(MAX_RATED_FEATURES), "word:common"], false, 1).counts).toEqual(
      learn(learn(emptyCounts(), ["word:common"], true, 1), [...many(MAX_RATED_FEATURES), "word:common"], false, 1).counts,
    );
  });
});
