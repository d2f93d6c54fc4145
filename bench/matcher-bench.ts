// The keyword matcher on one core: compile time for 10,000 keywords, then posts/s and MB/s over a
// generated multilingual corpus, against the naive approach (one Unicode regex per keyword) on a subset
// of the same corpus; both must find the same posts. Data comes from a seeded PRNG, so every run
// matches the same text. Then a peer on what both do: modern-ahocorasick (the most used Aho-Corasick package
// on npm; its default grapheme-based build and its `/fast` one) against the matcher on the same corpus,
// with the same keywords reduced to plain phrases (value and aliases, no exclusions, all case-folded): the
// library searches the lower-cased text for the lower-cased phrases (it neither folds case nor checks word
// boundaries), the matcher does both. BENCH_PEER=0 skips it.
// Usage: node services/platform/test/ts-child.js bench/matcher-bench.ts
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import AhoCorasick from "modern-ahocorasick";
import FastAhoCorasick from "modern-ahocorasick/fast";
import { compileMatcher, type MatchablePost, type MatcherKeyword, type MatchSource } from "../services/contracts/src/matcher/index";

const KEYWORDS = 10_000;
const POSTS = 4_000;
const NAIVE_POSTS = Number(process.env.BENCH_NAIVE_POSTS ?? 100);
const RUNS = 5;
const RUN_MS = Number(process.env.BENCH_RUN_MS ?? 1_000);

// mulberry32: small, fast and good enough to make the same data on every run.
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const random = prng(20261123);
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
const chance = (p: number) => random() < p;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

// ---------------------------------------------------------------- keywords

const LATIN = ["zen", "tri", "vo", "lux", "ka", "mi", "ro", "nex", "qua", "sol", "ta", "ver", "ax", "io", "pli", "dra", "fen", "gor", "hal", "jin", "kor", "lem", "mor", "nav", "ost", "pix", "rad", "sy", "tor", "ul", "vex", "wyn", "yo", "zu", "bel", "cor", "dex", "el", "fi", "gra"];
const ACCENTED = ["é", "è", "ü", "ö", "ñ", "ç", "à", "ô"];
const SUFFIXES = ["Labs", "Cloud", "AI", "Pay", "Bank", "Motors", "Studio", "Health", "Foods", "Games", "Energy", "Mobile", "Air", "Analytics"];
const CYRILLIC = ["ро", "ст", "ел", "ком", "ва", "ник", "ла", "то", "ми", "ка", "де", "ри", "бан", "тех", "нова"];
const KATAKANA = ["ソ", "ニ", "ッ", "ク", "タ", "ワ", "ー", "ラ", "メ", "ン", "カ", "イ", "ト", "ロ", "ミ", "ア", "テ", "ス"];
const HANZI = ["华", "为", "云", "科", "技", "小", "米", "百", "度", "阿", "里", "腾", "讯", "京", "东", "美", "团", "星", "海"];
const DEVANAGARI = ["जि", "यो", "टा", "म", "हिं", "द्रा", "रि", "ल", "इं", "फो", "सि", "स", "भा", "र"];

const latinName = () => {
  let s = "";
  for (let i = 0, n = 2 + int(2); i < n; i++) s += pick(LATIN);
  if (chance(0.15)) {
    const at = 1 + int(s.length - 1);
    s = s.slice(0, at) + pick(ACCENTED) + s.slice(at + 1);
  }
  return capital(s);
};
const joined = (parts: readonly string[], min: number, extra: number) => {
  let s = "";
  for (let i = 0, n = min + int(extra); i < n; i++) s += pick(parts);
  return s;
};

const makeKeyword = (i: number): MatcherKeyword => {
  const r = random();
  let value: string;
  let aliases: string[];
  if (r < 0.6) {
    const name = latinName();
    value = chance(0.35) ? `${name} ${pick(SUFFIXES)}` : name;
    aliases = [`#${name.toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "")}`, `@${name.toLowerCase()}hq`];
  } else if (r < 0.68) {
    const name = joined(CYRILLIC, 2, 2);
    value = capital(name);
    aliases = [`${capital(name)} ${pick(["Банк", "Групп", "Тех"])}`, `#${name}`];
  } else if (r < 0.76) {
    value = joined(KATAKANA, 3, 3);
    aliases = [`${value}社`, `${latinName()} Japan`];
  } else if (r < 0.84) {
    value = joined(HANZI, 2, 2);
    aliases = [`${value}集团`, `${latinName()} China`];
  } else if (r < 0.9) {
    value = joined(DEVANAGARI, 2, 2);
    aliases = [`${value} इंडिया`, `${latinName()} India`];
  } else {
    const name = latinName();
    const ticker = name.normalize("NFD").replace(/[\u0300-\u036f]/g, "").slice(0, 3 + int(2)).toUpperCase();
    value = `$${ticker}`;
    aliases = [`#${name.toLowerCase()}`, `${name} Inc`];
  }
  return {
    id: `kw_${i}`,
    groupId: `kwg_${i % 7}`,
    value,
    aliases,
    excludedTerms: [`${value} ${pick(["jobs", "careers", "hiring", "coupon"])}`],
    caseSensitive: chance(0.02),
    sources: ["x", "reddit", "youtube", "linkedin"],
    filters: {},
  };
};

// ---------------------------------------------------------------- posts

const WORDS: Record<string, readonly string[]> = {
  en: "the a and to of in is it for on with this that just so really love new today my our you we launch update app phone price review best worst still waiting support team thanks great terrible shipping order week".split(" "),
  es: "el la los de que y en un una es por para con muy pero más nuevo hoy precio también está gracias años mañana teléfono atención cliente envío pedido".split(" "),
  fr: "le la les de des et en un une est pour avec très mais plus nouveau aujourd'hui prix aussi été merci déjà où ça commande livraison équipe".split(" "),
  de: "der die das und zu den ist nicht mit sich auch auf für über schön grüße heute preis wirklich bestellung lieferung kundendienst endlich".split(" "),
  ru: "и в не на я что тот быть с он а это как по но они мы новый сегодня цена спасибо доставка заказ очень наконец".split(" "),
  ja: "今日 は 新しい を 買い ました とても 良い です ね 私 の 友達 が 使って いる 価格 高い 安い 配送 注文 最高".split(" "),
  zh: "今天 我 买 了 新的 手机 非常 好用 价格 有点 贵 朋友 推荐 服务 很好 快递 订单 终于 到了".split(" "),
  hi: "आज मैंने नया फोन खरीदा बहुत अच्छा है कीमत थोड़ी ज्यादा दोस्तों ने बताया सेवा डिलीवरी ऑर्डर आखिरकार".split(" "),
};
const LANGUAGES: Array<[string, number]> = [["en", 0.4], ["es", 0.1], ["fr", 0.08], ["de", 0.08], ["ru", 0.1], ["ja", 0.1], ["zh", 0.07], ["hi", 0.07]];
const NO_SPACES = new Set(["ja", "zh"]);
const EMOJI = ["😀", "🔥", "🚀", "❤️", "👍", "😂", "🙏", "✨", "😡", "📱"];
const SOURCES: readonly MatchSource[] = ["x", "reddit", "youtube", "linkedin"];

const language = () => {
  let r = random();
  for (const [lang, p] of LANGUAGES) if ((r -= p) < 0) return lang;
  return "en";
};

/** How a post writes a keyword phrase: as is, or in another case, or without its accents. */
const mention = (k: MatcherKeyword) => {
  const phrase = chance(0.6) ? k.value : pick(k.aliases);
  if (k.caseSensitive) return phrase;
  const r = random();
  if (r < 0.15) return phrase.toLowerCase();
  if (r < 0.25) return phrase.toUpperCase();
  if (r < 0.35) return phrase.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  return phrase;
};

const makePost = (keywords: readonly MatcherKeyword[], i: number): MatchablePost => {
  const lang = language();
  const words = WORDS[lang] as readonly string[];
  // Social posts are mostly short: 100–2,000 characters, skewed towards the low end.
  const target = 100 + Math.floor(1900 * random() ** 3);
  const sep = NO_SPACES.has(lang) ? "" : " ";
  const mentions = chance(0.35) ? 1 + int(2) : 0;
  let text = "";
  let placed = 0;
  while (text.length < target) {
    const r = random();
    let piece: string;
    if (placed < mentions && r < 0.08) {
      piece = ` ${mention(pick(keywords))} `;
      placed++;
    } else if (r < 0.12) piece = ` #${pick(words)}`;
    else if (r < 0.15) piece = ` @${pick(LATIN)}${pick(LATIN)}${int(100)}`;
    else if (r < 0.17) piece = ` https://example.com/${pick(LATIN)}/${int(1e6)}?ref=${pick(LATIN)} `;
    else if (r < 0.22) piece = pick(EMOJI) + (chance(0.5) ? " " : "");
    else if (r < 0.26) piece = pick([". ", ", ", "! ", "? ", "... ", "\n"]);
    else piece = (text === "" ? "" : sep) + pick(words);
    text += piece;
  }
  return {
    source: SOURCES[i % 4] as MatchSource,
    text,
    lang,
    author: { id: `u${i % 997}`, handle: `user${i % 997}`, followers: int(10_000) },
  };
};

// ---------------------------------------------------------------- the naive matcher

const STRIP = /[\u0300-\u036f]|[\u1ab0-\u1aff]|[\u1dc0-\u1dff]|[\u20d0-\u20ff]|[\ufe20-\ufe2f]/g;
const fold = (s: string) => s.normalize("NFD").replace(STRIP, "");
// Characters that need a word boundary: letters, digits and marks, except variation selectors and the
// scripts written without spaces. One class per side keeps the regexes as small as they can be.
const NO_SPACE = String.raw`[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Thai}\p{scx=Laoo}\p{scx=Khmr}\p{scx=Mymr}]`;
const BOUNDED = String.raw`[[\p{L}\p{N}\p{M}]--[\uFE00-\uFE0F]--${NO_SPACE}]`;
const isWord = (ch: string) => /^[\p{L}\p{N}\p{M}]$/u.test(ch) && !/^[\uFE00-\uFE0F]$/u.test(ch);
const isNoSpace = (ch: string) => new RegExp(`^${NO_SPACE}$`, "u").test(ch);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** One regex for all the phrases: each with a lookbehind, and a lookahead when it ends on a word character. */
const phrasesRegex = (phrases: readonly string[], flags: string) => {
  const groups = new Map<string, string[]>();
  for (const phrase of phrases) {
    const chars = [...phrase.trim()];
    const first = chars[0] ?? "";
    const last = chars[chars.length - 1] ?? "";
    const before = isNoSpace(first) ? "" : `(?<!${BOUNDED})`;
    const after = isWord(last) && !isNoSpace(last) ? `(?!${BOUNDED})` : "";
    const body = phrase.trim().split(/\s+/).map(escape).join(String.raw`\s+`);
    groups.set(`${before}|${after}`, [...(groups.get(`${before}|${after}`) ?? []), body]);
  }
  const alternatives = [...groups].map(([key, bodies]) => {
    const [before, after] = key.split("|");
    return `${before}(?:${bodies.join("|")})${after}`;
  });
  return new RegExp(alternatives.join("|"), flags);
};

interface NaiveKeyword {
  terms: RegExp;
  excluded: RegExp | undefined;
  folded: boolean;
}

const compileNaive = (keywords: readonly MatcherKeyword[]): NaiveKeyword[] =>
  keywords.map((k) => {
    const prep = k.caseSensitive ? (s: string) => s : fold;
    const flags = k.caseSensitive ? "v" : "iv";
    return {
      terms: phrasesRegex([k.value, ...k.aliases].map(prep), flags),
      excluded: k.excludedTerms.length > 0 ? phrasesRegex(k.excludedTerms.map(prep), flags) : undefined,
      folded: !k.caseSensitive,
    };
  });

/** Number of keywords matching the post, the naive way. */
const naiveMatch = (keywords: readonly NaiveKeyword[], post: MatchablePost): number => {
  const folded = fold(post.text);
  let hits = 0;
  for (const k of keywords) {
    const text = k.folded ? folded : post.text;
    if (k.terms.test(text) && !(k.excluded?.test(text) ?? false)) hits++;
  }
  return hits;
};

// ---------------------------------------------------------------- measuring

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

/**
 * Posts per second of processor time (the process's own, so other load on the machine counts less)
 * over `runs` runs of about RUN_MS each (whole passes over the posts).
 */
const throughput = (posts: readonly MatchablePost[], each: (p: MatchablePost) => void, runs: number): number[] => {
  const rates: number[] = [];
  for (let r = 0; r < runs; r++) {
    let done = 0;
    const started = process.cpuUsage();
    let elapsed = 0;
    do {
      for (const p of posts) each(p);
      done += posts.length;
      elapsed = cpuSeconds(started);
    } while (elapsed * 1000 < RUN_MS);
    rates.push(done / elapsed);
  }
  return rates;
};

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

const main = () => {
  const keywords = Array.from({ length: KEYWORDS }, (_, i) => makeKeyword(i));
  // Through JSON, as posts arrive from the bus: flat strings, not the ropes that concatenation builds.
  const posts = JSON.parse(JSON.stringify(Array.from({ length: POSTS }, (_, i) => makePost(keywords, i)))) as MatchablePost[];
  const bytes = posts.reduce((n, p) => n + Buffer.byteLength(p.text, "utf8"), 0);
  const chars = posts.reduce((n, p) => n + p.text.length, 0);
  const out = (line: string) => process.stdout.write(`${line}\n`);

  out(`keyword matcher — node ${process.version}, one core`);
  out(`${fmt(KEYWORDS)} keywords (value + 2 aliases + 1 exclusion, ${keywords.filter((k) => k.caseSensitive).length} case-sensitive); ${fmt(POSTS)} posts, ${fmt(chars / POSTS)} characters on average (${fmt(bytes / 1e6, 2)} MB UTF-8)`);

  const compileTimes: number[] = [];
  let matcher = compileMatcher(keywords);
  for (let i = 0; i < 3; i++) {
    const t = process.hrtime.bigint();
    matcher = compileMatcher(keywords);
    compileTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  out(`compile: ${fmt(median(compileTimes))} ms (median of 3; ${compileTimes.map((t) => fmt(t)).join(", ")})`);

  let sink = 0;
  const matched = posts.filter((p) => matcher.match(p).length > 0).length;
  const rates = throughput(posts, (p) => (sink += matcher.match(p).length), RUNS);
  const rate = median(rates);
  out(`matcher: ${fmt(rate)} posts/s, ${fmt((rate * bytes) / POSTS / 1e6, 1)} MB/s (median of ${RUNS} runs: ${rates.map((r) => fmt(r)).join(", ")}); ${fmt(matched)} of ${fmt(POSTS)} posts match`);

  if (process.env.BENCH_PEER !== "0") peer(keywords, posts, bytes, out);
  if (NAIVE_POSTS === 0) return;
  const subset = posts.slice(0, NAIVE_POSTS);
  const subsetBytes = subset.reduce((n, p) => n + Buffer.byteLength(p.text, "utf8"), 0);
  const naive = naiveInChild();
  const naiveRate = subset.length / naive.seconds;
  const subsetRate = median(throughput(subset, (p) => (sink += matcher.match(p).length), RUNS));
  const fastHits = subset.map((p) => matcher.match(p).length);
  const agree = fastHits.every((h, i) => h === naive.hits[i]);
  const count = (hits: number[]) => `${hits.filter((h) => h > 0).length} posts matched, ${hits.reduce((a, b) => a + b, 0)} keyword hits`;
  out(`naive (one regex per keyword; building them and warming up on 2 posts: ${fmt(naive.warmSeconds, 1)} s), first ${NAIVE_POSTS} posts (${fmt(subsetBytes / 1e6, 3)} MB): ${fmt(naiveRate, 1)} posts/s, ${fmt((naiveRate * subsetBytes) / subset.length / 1e6, 3)} MB/s`);
  out(`matcher on the same ${NAIVE_POSTS} posts: ${fmt(subsetRate)} posts/s; ratio matcher / naive: ${fmt(subsetRate / naiveRate)}×`);
  out(`same posts? naive: ${count(naive.hits)}; matcher: ${count(fastHits)}; per post ${agree ? "identical" : "DIFFERENT"}`);
  if (sink < 0) out("");
  if (!agree) process.exitCode = 1;
};

/** The matcher and modern-ahocorasick on plain, case-folded phrases: same keywords, same posts, same run. */
const peer = (keywords: readonly MatcherKeyword[], posts: readonly MatchablePost[], bytes: number, out: (line: string) => void) => {
  const plain = keywords.map((k) => ({ ...k, excludedTerms: [], caseSensitive: false }));
  const phrases = [...new Set(plain.flatMap((k) => [k.value, ...k.aliases]).map((p) => p.toLowerCase()))];
  const timed = <T>(build: () => T): { value: T; ms: number } => {
    const t = process.hrtime.bigint();
    const value = build();
    return { value, ms: Number(process.hrtime.bigint() - t) / 1e6 };
  };
  const ours = timed(() => compileMatcher(plain));
  const library = timed(() => new AhoCorasick(phrases));
  const fast = timed(() => new FastAhoCorasick(phrases));
  let sink = 0;
  const rows: Array<[string, number, number]> = [
    ["matcher (word boundaries, case and accent folding)", ours.ms, median(throughput(posts, (p) => (sink += ours.value.match(p).length), RUNS))],
    ["modern-ahocorasick count(lower-cased text)", library.ms, median(throughput(posts, (p) => (sink += library.value.count(p.text.toLowerCase())), RUNS))],
    ["modern-ahocorasick search(lower-cased text)", library.ms, median(throughput(posts, (p) => (sink += library.value.search(p.text.toLowerCase()).length), RUNS))],
    ["modern-ahocorasick/fast count(lower-cased text)", fast.ms, median(throughput(posts, (p) => (sink += fast.value.count(p.text.toLowerCase())), RUNS))],
    ["modern-ahocorasick/fast search(lower-cased text)", fast.ms, median(throughput(posts, (p) => (sink += fast.value.search(p.text.toLowerCase()).length), RUNS))],
  ];
  const matched = posts.filter((p) => ours.value.match(p).length > 0).length;
  const found = posts.filter((p) => library.value.match(p.text.toLowerCase())).length;
  out(`peer, plain phrases (${fmt(phrases.length)} distinct, lower-cased) over the same ${fmt(posts.length)} posts; posts with a hit: matcher ${fmt(matched)}, library ${fmt(found)} (no word boundaries)`);
  const base = rows[0]?.[2] ?? 1;
  for (const [name, compileMs, rate] of rows) {
    out(`  ${name}: compile ${fmt(compileMs)} ms, ${fmt(rate)} posts/s, ${fmt((rate * bytes) / posts.length / 1e6, 1)} MB/s; matcher / this ${fmt(base / rate, 2)}×`);
  }
  if (sink < 0) out("");
};

interface NaiveResult {
  warmSeconds: number;
  seconds: number;
  hits: number[];
}

const NAIVE_ONLY = "--naive";

/** The naive way over the first NAIVE_POSTS posts, printed as one JSON line. */
const naiveMain = () => {
  const keywords = Array.from({ length: KEYWORDS }, (_, i) => makeKeyword(i));
  const posts = JSON.parse(JSON.stringify(Array.from({ length: POSTS }, (_, i) => makePost(keywords, i)))) as MatchablePost[];
  // Each regex is compiled to machine code on its first use (--no-regexp-tier-up): two warm-up posts
  // (not among those measured) pay for that before the clock starts.
  const t0 = process.hrtime.bigint();
  const naive = compileNaive(keywords);
  for (const p of posts.slice(NAIVE_POSTS, NAIVE_POSTS + 2)) naiveMatch(naive, p);
  const warmSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage();
  const hits = posts.slice(0, NAIVE_POSTS).map((p) => naiveMatch(naive, p));
  const result: NaiveResult = { warmSeconds, seconds: cpuSeconds(cpu), hits };
  process.stdout.write(`${JSON.stringify(result)}\n`);
};

/**
 * Runs naiveMain in a process of its own, with the V8 flags that are fairest to the naive way:
 * --no-flush-bytecode, as V8 otherwise throws away compiled code (regex code included) that a few
 * collections found unused, and with 10,000 regexes compiling one ages the others, so they are
 * recompiled over and over (about 15× slower); --no-regexp-tier-up, so each regex goes straight to
 * machine code instead of running interpreted for its first uses. A separate heap also keeps the
 * regexes away from the matcher.
 */
const naiveInChild = (): NaiveResult => {
  const child = spawnSync(process.execPath, ["--no-flush-bytecode", "--no-regexp-tier-up", join(__dirname, "../services/platform/test/ts-child.js"), __filename, NAIVE_ONLY], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`naive run exited ${child.status}`);
  return JSON.parse(child.stdout.trim().split("\n").pop() as string) as NaiveResult;
};

if (process.argv.includes(NAIVE_ONLY)) naiveMain();
else main();
