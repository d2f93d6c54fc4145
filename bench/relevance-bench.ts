// The relevance model on a labelled set it never saw while being written (bench/relevance-data.ts): per
// brand and seed, 100 posts are rated in arrival order and the rest are held out; the score's ROC AUC on
// the held-out posts after 0, 20, 50 and 100 ratings, and the precision and recall of label = relevant
// after 100, against the keyword-only baseline (every post that names the keyword counts as relevant).
// Then the scoring cost on one core: features and score of a mention, µs each.
// Usage: node services/platform/test/ts-child.js bench/relevance-bench.ts
import { featuresOf, type RelevanceInput } from "../services/mention/src/domain/relevance/features";
import { emptyCounts, learn, type LearnedCounts } from "../services/mention/src/domain/relevance/model";
import { priorOf } from "../services/mention/src/domain/relevance/prior";
import { compileScorer } from "../services/mention/src/domain/relevance/score";
import { selfTrain } from "../services/mention/src/domain/relevance/semi-supervised";
import { HAND_BRANDS } from "./relevance-handset";
import { BRANDS, type BrandSpec, labelledPosts, type LabelledPost } from "./relevance-data";

const PER_BRAND = Number(process.env.BENCH_PER_BRAND ?? 400);
const RATED = 100;
const STEPS = [0, 20, 50, 100];
const SEEDS = [1, 2, 3];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");

/** The post as a mention: where the keyword matched (word boundaries, case folded), or null when it does not. */
const asMention = (post: LabelledPost): RelevanceInput | null => {
  const m = new RegExp(`(?<![\\p{L}\\p{N}])${escape(post.brand)}(?![\\p{L}\\p{N}])`, "iu").exec(post.text);
  if (!m) return null;
  return {
    text: post.text,
    source: post.source,
    authorKey: post.author,
    keywordIds: ["kw_brand"],
    matches: [{ keywordId: "kw_brand", term: post.brand, field: "text", start: m.index, end: m.index + m[0].length }],
  };
};

/** ROC AUC by ranks (ties count half). */
const aucOf = (scores: number[], labels: boolean[]): number => {
  const order = scores.map((s, i) => [s, labels[i]] as const).sort((a, b) => a[0] - b[0]);
  let rankSum = 0;
  let positives = 0;
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j < order.length && order[j]![0] === order[i]![0]) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (order[k]![1]) { rankSum += rank; positives += 1; }
    i = j;
  }
  const negatives = order.length - positives;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
};

interface Row {
  brand: string;
  auc: number[];
  precision: number;
  recall: number;
  baselinePrecision: number;
  held: number;
}

type Variant = "same phrasings" | "unseen phrasings" | "unseen phrasings, no case cue";

const mentionsOf = (posts: LabelledPost[]) =>
  posts
    .map((p) => ({ post: p, mention: asMention(p) }))
    .filter((x): x is { post: LabelledPost; mention: RelevanceInput } => x.mention !== null)
    .map((x) => ({ ...x, features: featuresOf(x.mention) }));

/** The project's unrated feed: posts of every phrasing, labels unseen, none of them held out. */
const POOL = Number(process.env.BENCH_POOL ?? 300);
const SEMI = process.env.BENCH_SEMI !== "0";

const evaluate = (brand: BrandSpec, seed: number, variant: Variant): Row => {
  const base = seed * 7919 + brand.name.length;
  let rated;
  let held;
  if (variant === "same phrasings") {
    const posts = mentionsOf(labelledPosts(brand, PER_BRAND, base));
    rated = posts.slice(0, RATED);
    held = posts.slice(RATED);
  } else {
    // Rated posts use half the phrasings, held-out ones only the other half: what is scored was never rated.
    const brandCapital = variant === "unseen phrasings" ? 0.75 : 0.5;
    rated = mentionsOf(labelledPosts(brand, RATED * 2, base, { phrasings: "even", brandCapital })).slice(0, RATED);
    held = mentionsOf(labelledPosts(brand, PER_BRAND - RATED, base + 1, { phrasings: "odd", brandCapital }));
  }
  const prior = priorOf({ description: brand.description, keywords: [{ value: brand.name, aliases: brand.aliases, excludedTerms: brand.excludedTerms }] });
  const labels = held.map((h) => h.post.relevant);
  const pool = mentionsOf(labelledPosts(brand, POOL, base + 2, { brandCapital: variant === "unseen phrasings, no case cue" ? 0.5 : 0.75 })).map((p) => p.features);
  const auc: number[] = [];
  let counts: LearnedCounts = emptyCounts();
  let learned = 0;
  let precision = 0;
  let recall = 0;
  for (const step of STEPS) {
    while (learned < step) {
      counts = learn(counts, rated[learned]!.features, rated[learned]!.post.relevant, 1);
      learned += 1;
    }
    const ratedCounts = counts;
    const unrated = SEMI ? selfTrain(pool, (soft) => { const s = compileScorer(ratedCounts, step, prior, soft); return (fs) => s.scoreFeatures(fs).score; }) : undefined;
    const scorer = compileScorer(counts, step, prior, unrated);
    const scored = held.map((h) => scorer.scoreFeatures(h.features));
    auc.push(aucOf(scored.map((s) => s.score), labels));
    if (step === RATED) {
      const flagged = scored.map((s) => s.label === "relevant");
      const tp = flagged.filter((f, i) => f && labels[i]).length;
      precision = tp / Math.max(1, flagged.filter(Boolean).length);
      recall = tp / Math.max(1, labels.filter(Boolean).length);
    }
  }
  return { brand: brand.name, auc, precision, recall, baselinePrecision: labels.filter(Boolean).length / labels.length, held: held.length };
};

const pct = (n: number) => n.toFixed(3);
for (const variant of ["same phrasings", "unseen phrasings", "unseen phrasings, no case cue"] as const) {
const rows = BRANDS.flatMap((b) => SEEDS.map((s) => evaluate(b, s, variant)));
console.log(`\nrelevance (${variant}): ${BRANDS.length} brands x ${SEEDS.length} seeds, ${PER_BRAND} posts generated each, ${RATED} rated, the rest held out`);
console.log("| brand | AUC 0 | AUC 20 | AUC 50 | AUC 100 | precision (label=relevant, 100 rated) | recall | keyword-only precision (recall 1) |");
console.log("|---|---|---|---|---|---|---|---|");
for (const b of BRANDS) {
  const mine = rows.filter((r) => r.brand === b.name);
  const mean = (f: (r: Row) => number) => mine.reduce((s, r) => s + f(r), 0) / mine.length;
  console.log(`| ${b.name} | ${STEPS.map((_, i) => pct(mean((r) => r.auc[i]!))).join(" | ")} | ${pct(mean((r) => r.precision))} | ${pct(mean((r) => r.recall))} | ${pct(mean((r) => r.baselinePrecision))} |`);
}
const all = (f: (r: Row) => number) => rows.reduce((s, r) => s + f(r), 0) / rows.length;
console.log(`| all | ${STEPS.map((_, i) => pct(all((r) => r.auc[i]!))).join(" | ")} | ${pct(all((r) => r.precision))} | ${pct(all((r) => r.recall))} | ${pct(all((r) => r.baselinePrecision))} |`);
}
console.log("keyword-only baseline AUC: 0.500 (every post scores the same)");

// The hand-written set: per brand and shuffle (5 seeds), the first k posts rated, the rest held out and
// also the project's unrated feed (they are the mentions a rescore pass reads).
const HAND_STEPS = [0, 10, 20];
for (const semi of [false, true]) {
  console.log(`\nrelevance (hand-written set, ${semi ? "with" : "without"} the unrated feed): AUC after ${HAND_STEPS.join(", ")} ratings`);
  console.log(`| brand | posts | ${HAND_STEPS.map((k) => `AUC ${k}`).join(" | ")} |`);
  console.log(`|---|---|${HAND_STEPS.map(() => "---").join("|")}|`);
  const totals = HAND_STEPS.map(() => 0);
  for (const hb of HAND_BRANDS) {
    const posts: LabelledPost[] = [
      ...hb.relevant.map((text, i) => ({ brand: hb.name, text, source: (["x", "reddit"] as const)[i % 2]!, author: `u${i}`, relevant: true })),
      ...hb.irrelevant.map((text, i) => ({ brand: hb.name, text, source: (["x", "reddit"] as const)[(i + 1) % 2]!, author: `v${i}`, relevant: false })),
    ].filter((p) => !hb.excludedTerms.some((e) => p.text.toLowerCase().includes(e)));
    const all = mentionsOf(posts);
    const prior = priorOf({ description: hb.description, keywords: [{ value: hb.name, aliases: hb.aliases, excludedTerms: hb.excludedTerms }] });
    const sums = HAND_STEPS.map(() => 0);
    const SHUFFLES = [1, 2, 3, 4, 5];
    for (const seed of SHUFFLES) {
      let x = seed;
      const order = all.map((m, i) => ({ m, key: ((x = (Math.imul(x, 1103515245) + 12345 + i) >>> 0), x) })).sort((a, b) => a.key - b.key).map((o) => o.m);
      HAND_STEPS.forEach((k, si) => {
        let counts = emptyCounts();
        for (const r of order.slice(0, k)) counts = learn(counts, r.features, r.post.relevant, 1);
        const held = order.slice(k);
        const ratedCounts = counts;
        const unrated = semi ? selfTrain(held.map((h) => h.features), (soft) => { const s = compileScorer(ratedCounts, k, prior, soft); return (fs) => s.scoreFeatures(fs).score; }) : undefined;
        const scorer = compileScorer(counts, k, prior, unrated);
        sums[si]! += aucOf(held.map((h) => scorer.scoreFeatures(h.features).score), held.map((h) => h.post.relevant));
      });
    }
    sums.forEach((s, i) => (totals[i]! += s / SHUFFLES.length / HAND_BRANDS.length));
    console.log(`| ${hb.name} | ${all.length} | ${sums.map((s) => pct(s / SHUFFLES.length)).join(" | ")} |`);
  }
  console.log(`| all | | ${totals.map(pct).join(" | ")} |`);
}

// Cost: a mention's features and score, on one core.
const brand = BRANDS[0]!;
const sample = labelledPosts(brand, 2000, 99).map(asMention).filter((m): m is RelevanceInput => m !== null);
let counts = emptyCounts();
for (const m of sample.slice(0, 100)) counts = learn(counts, featuresOf(m), Math.random() < 2, 1);
const scorer = compileScorer(counts, 100, priorOf({ description: brand.description, keywords: [{ value: brand.name, aliases: brand.aliases, excludedTerms: brand.excludedTerms }] }));
for (let i = 0; i < 3; i++) for (const m of sample) scorer.score(m);
const RUNS = 5;
const perRun: number[] = [];
for (let r = 0; r < RUNS; r++) {
  const start = process.hrtime.bigint();
  let n = 0;
  while (n < 50_000) for (const m of sample) { scorer.score(m); n += 1; }
  perRun.push(Number(process.hrtime.bigint() - start) / 1000 / n);
}
perRun.sort((a, b) => a - b);
console.log(`scoring: ${perRun.map((x) => x.toFixed(2)).join(", ")} µs per mention (features + score, ${RUNS} runs of ≥50,000; median ${perRun[2]!.toFixed(2)} µs)`);
