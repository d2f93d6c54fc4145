// Generated mentions for the mention benchmarks: a seeded PRNG, so every run reads the same data. 180 days
// of publishedAt from 2026-01-01, 5 sources (x twice as often), 3 statuses, 20 keywords in 3 groups, 30%
// categorized, 12 words each from a Zipf-like vocabulary of 400 (word i drawn with weight 1/(i+1)).
import type { MentionDoc } from "../services/mention/src/store";

// mulberry32: small, fast and good enough to make the same data on every run.
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

export const START = Date.parse("2026-01-01T00:00:00Z");
export const SPAN = 180 * 24 * 3_600_000;

const VOCABULARY = Array.from({ length: 400 }, (_, i) => `w${i}`);
const weights = VOCABULARY.map((_, i) => 1 / (i + 1));
const totalWeight = weights.reduce((a, b) => a + b, 0);

/** A generator of mentions of one project; the n-th call gives the same mention on every run. */
export const mentionGenerator = (projectId: string, workspaceId: string, seed = 20261124): (() => MentionDoc) => {
  const random = prng(seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
  const word = () => {
    let r = random() * totalWeight;
    for (let i = 0; i < weights.length; i++) if ((r -= weights[i] as number) <= 0) return VOCABULARY[i] as string;
    return VOCABULARY[0] as string;
  };
  let serial = 0;
  return () => {
    serial += 1;
    const publishedAt = new Date(START + int(SPAN));
    const source = pick(["x", "x", "reddit", "youtube", "linkedin"] as const);
    const sourceId = `post-${serial}`;
    const words = [...new Set(Array.from({ length: 12 }, word))];
    const status = random() < 0.7 ? "open" : random() < 0.66 ? "done" : "follow_up";
    const now = new Date(START + SPAN);
    const kw = `kw_${int(20)}`;
    return {
      _id: `men_${String(serial).padStart(26, "0")}`,
      projectId,
      workspaceId,
      source,
      sourceId,
      postKey: `${projectId}|${source}|${sourceId}`,
      url: `https://example.com/${sourceId}`,
      text: words.join(" "),
      author: { id: `u${int(5000)}`, handle: `user${int(5000)}`, name: "Someone" },
      authorKey: `user${int(5000)}`,
      publishedAt,
      keywordIds: [kw],
      groupIds: [`kwg_${int(3)}`],
      matches: [{ keywordId: kw, term: "acme", field: "text", start: 0, end: 4 }],
      sentiment: { label: pick(["positive", "neutral", "neutral", "negative"] as const), score: 0, method: "lexicon" },
      words,
      status,
      ...(random() < 0.3 ? { categoryId: `cat_${int(5)}` } : {}),
      collectedAt: now,
      matchedAt: now,
      updatedAt: now,
      history: [],
      _v: 1,
    };
  };
};
