// A generated set of syndicated and unrelated posts for measuring story grouping (bench/story-bench.ts).
// Every post names the same brand (a common word), as a busy project's mentions do, so unrelated posts share
// many words. A story is one piece of news spread the ways real syndication spreads it: the same link with
// other tracking parameters, scheme or `www.`; the same text retweeted ("RT @x:"), with a link, a "via @x"
// or hashtags added, lightly edited or cut short; across X, Reddit, YouTube and LinkedIn. Seeded: the
// same set on every run.

const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const WORDS = (
  "release update users team today new feature price launch review app phone service support customers " +
  "company market report data growth plan version beta issue fix problem great slow fast better worse love " +
  "hate finally again really still free pro account login sync battery screen camera design build ship week " +
  "month year first last big small open source cloud api developers teams enterprise deal funding round " +
  "ceo interview podcast video thread post article blog news story leak rumor announce partner integration"
).split(" ");
const SITES = ["techdaily.example", "news.example.org", "blog.example.net", "medium.example.com", "dev.example.io"];
const TEMPLATES = ["New on the Acme blog this week, check it out and tell us what you think:", "Daily Acme digest from our community team, the top posts of the day:", "Acme status update for all customers in the enterprise plan region:"];
const SOURCES = ["x", "reddit", "youtube", "linkedin"] as const;

export interface StoryPost {
  source: (typeof SOURCES)[number];
  url: string;
  text: string;
  /** The story it was generated in: the truth the grouping is measured against (unrelated posts have their own). */
  truth: number;
  publishedAt: Date;
}

export const storyPosts = (stories = 300, unrelated = 600, seed = 20261128): StoryPost[] => {
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const sentence = (n: number) => ["Acme", ...Array.from({ length: n }, () => pick(WORDS))].sort(() => random() - 0.5).join(" ");
  const start = Date.UTC(2026, 10, 1);
  const posts: StoryPost[] = [];
  let sequence = 0;
  const permalink = (source: StoryPost["source"]) => {
    sequence += 1;
    return { x: `https://x.com/u${sequence}/status/${sequence}`, reddit: `https://www.reddit.com/r/tech/comments/${sequence}/`, youtube: `https://www.youtube.com/watch?v=v${sequence}`, linkedin: `https://www.linkedin.com/posts/p${sequence}` }[source];
  };
  const tracking = () =>
    pick(["", "?utm_source=twitter&utm_medium=social", "?utm_source=reddit", "?fbclid=IwAR" + sequence, "?ref=producthunt", "?s=20", "#comments", "/"]);
  const variant = (base: string): string => {
    const words = base.split(" ");
    switch (Math.floor(random() * 8)) {
      case 0:
        return `RT @${pick(WORDS)}${sequence}: ${base}`;
      case 1:
        return `${base} #${pick(WORDS)} #${pick(WORDS)}`;
      case 2:
        return `${base} via @${pick(WORDS)}news`;
      case 3: {
        const i = Math.floor(random() * words.length);
        words[i] = pick(WORDS);
        return words.join(" ");
      }
      case 4:
        return `${base.toUpperCase()}!!`;
      case 5:
        return `${words.slice(0, Math.ceil(words.length * 0.9)).join(" ")}…`;
      case 6:
        return `${pick(["Wow:", "This:", "Big news:", "👀"])} ${base}`;
      default:
        return base;
    }
  };
  for (let s = 0; s < stories; s++) {
    const at = start + Math.floor(random() * 20 * 86_400_000);
    const base = sentence(14 + Math.floor(random() * 20));
    const page = `${pick(SITES)}/${2026}/${pick(WORDS)}-${pick(WORDS)}-${s}`;
    const byLink = random() < 0.5;
    const copies = 2 + Math.floor(random() * 5);
    for (let c = 0; c < copies; c++) {
      const source = pick(SOURCES);
      const link = `${random() < 0.5 ? "https" : "http"}://${random() < 0.5 ? "www." : ""}${page}${tracking()}`;
      // A link story's copies say different things about the page; a text story's copies carry the text (some with the link too).
      const text = byLink ? `${sentence(6 + Math.floor(random() * 12))} ${link}` : `${variant(base)}${random() < 0.3 ? ` ${link}` : ""}`;
      posts.push({ source, url: permalink(source), text, truth: s, publishedAt: new Date(at + Math.floor(random() * 48 * 3_600_000)) });
    }
  }
  for (let u = 0; u < unrelated; u++) {
    const source = pick(SOURCES);
    // Unrelated posts on the same brand; a third link a page of a site the stories use, or its home page.
    const extra = random() < 0.33 ? ` https://${pick(SITES)}/${random() < 0.5 ? "" : `2026/other-${u}`}` : "";
    // A fifth open with the same boilerplate as others (a bot's or a newsletter's template), then say their own thing.
    const template = random() < 0.2 ? `${pick(TEMPLATES)} ` : "";
    posts.push({ source, url: permalink(source), text: `${template}${sentence(6 + Math.floor(random() * 24))}${extra}`, truth: stories + u, publishedAt: new Date(start + Math.floor(random() * 20 * 86_400_000)) });
  }
  return posts;
};
