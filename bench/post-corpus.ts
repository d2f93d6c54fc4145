// The posts the ingestion and pipeline benchmarks import: 1,000 brand-like keyword values and posts of
// 8 to 40 common words, about a third of them naming one or two keywords, 70% X and 30% Reddit. A seeded
// PRNG makes the same data on every run (the keywords first, then the posts, in that order).

// mulberry32: small, fast and good enough to make the same data on every run.
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const random = prng(20261124);
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
const chance = (p: number) => random() < p;

const SYLLABLES = ["zen", "tri", "vo", "lux", "ka", "mi", "ro", "nex", "qua", "sol", "ta", "ver", "ax", "io", "pli", "dra", "fen", "gor", "hal", "jin", "kor", "lem", "mor", "nav"];
const SUFFIXES = ["Labs", "Cloud", "AI", "Pay", "Motors", "Studio", "Health", "Foods", "Games", "Energy"];
const WORDS = (
  "the a of and to in is it that for on with as was at by this be from or have an they which one you had not but what all were when we there can " +
  "new launch update price phone app release today review service support customer team product feature week love hate great bad slow fast " +
  "problem issue fixed works broken waiting order shipping delivery store online account login screen battery camera deal sale buy think"
).split(" ");

/** Distinct brand-like names: 1,000 of them from three syllables and an optional suffix. */
export const keywordValues = (n: number): string[] => {
  const names = new Set<string>();
  while (names.size < n) {
    let s = "";
    for (let i = 0; i < 3; i++) s += pick(SYLLABLES);
    const name = s.charAt(0).toUpperCase() + s.slice(1);
    names.add(chance(0.3) ? `${name} ${pick(SUFFIXES)}` : name);
  }
  return [...names];
};

/** A post of 8 to 40 common words; about a third name one or two keywords somewhere in them. */
export const postLine = (i: number, brands: readonly string[]): string => {
  const words = Array.from({ length: 8 + int(33) }, () => pick(WORDS));
  if (chance(0.33)) {
    for (let k = 0, n = chance(0.2) ? 2 : 1; k < n; k++) words.splice(int(words.length), 0, chance(0.5) ? pick(brands) : pick(brands).toLowerCase());
  }
  const source = chance(0.7) ? "x" : "reddit";
  const id = `bench-${i}`;
  return JSON.stringify({
    source,
    sourceId: id,
    url: source === "x" ? `https://x.com/user${i % 5000}/status/${id}` : `https://www.reddit.com/r/tech/comments/${id}/`,
    ...(source === "reddit" ? { title: words.slice(0, 6).join(" ") } : {}),
    text: words.join(" "),
    author: { id: `u${i % 5000}`, handle: `user${i % 5000}`, name: `User ${i % 5000}`, followers: int(100_000) },
    publishedAt: new Date(Date.UTC(2026, 10, 1) + i * 37_000).toISOString(),
    lang: "en",
    metrics: { likes: int(500), replies: int(50), shares: int(20), views: int(10_000) },
  });
};
