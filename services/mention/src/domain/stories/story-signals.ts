import { FNV_OFFSET, fnvOn, fnvPair } from "../fnv";

// What makes two posts one story, computed from a post alone: the pages it links (normalized so that the
// same page shared through different apps, campaigns and shorteners' tracking reads the same) and a
// signature of its text (normalized so that a retweet prefix, an added link, a "via @x" or trailing
// hashtags do not change it). Pure and cheap: a few microseconds a post.

/** Query parameters that only say who shared a link or through which campaign: never part of the page. */
const TRACKING_PARAMS = new Set([
  "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "ttclid", "igshid", "igsh", "li_fat_id",
  "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "ref", "ref_src", "ref_url", "referrer", "spm", "si", "s",
  "share", "shared", "feature", "cmpid", "ocid", "sr_share", "smid", "rss",
]);
const isTracking = (name: string) => name.startsWith("utm_") || TRACKING_PARAMS.has(name);

/**
 * The page a link names, as a key: no scheme, lower-case host without `www.` or `m.`, no default port, no
 * fragment, no tracking parameters, the others sorted, no trailing slash. Null for what is not an http(s)
 * link, and for a site's home page (a link to a whole site says nothing about which story a post tells).
 */
export const normalizeUrl = (link: string): string | null => {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const host = url.hostname.toLowerCase().replace(/^(www\d*|m)\./, "").replace(/\.$/, "");
  const path = url.pathname.replace(/\/+$/, "");
  if (path === "" ) return null;
  const params = [...url.searchParams.entries()].filter(([name]) => !isTracking(name.toLowerCase())).sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1));
  const query = params.length === 0 ? "" : `?${new URLSearchParams(params).toString()}`;
  const port = url.port === "" ? "" : `:${url.port}`;
  return `${host}${port}${path}${query}`;
};

const LINK = /https?:\/\/[^\s<>"'`]+/giu;
const SCHEME = /http/i;
const mayLink = (s: string) => SCHEME.test(s);

/**
 * The distinct pages a post's title and text link. Not the post's own address: every source's posts are
 * pages of the platform (a tweet, a thread), never the page being shared.
 */
export const linksOf = (title: string | undefined, text: string): string[] => {
  const found = new Set<string>();
  // Most posts link nothing: a case-blind look for the scheme's letters spares them the scan.
  if (!mayLink(text) && !(title && mayLink(title))) return [];
  for (const [raw] of `${title ?? ""} ${text}`.matchAll(LINK)) {
    const key = normalizeUrl(raw.replace(/[.,;:!?)\]}>»”’]+$/u, ""));
    if (key) found.add(key);
  }
  return [...found];
};

/** Fewer words than this is too little text to tell a copy from a coincidence ("love this!"). */
export const MIN_SIGNATURE_WORDS = 8;

/**
 * The words that carry a post's text: links, a retweet prefix ("RT @x:"), a trailing "via @x" or "h/t @x",
 * trailing hashtags and handles dropped; inline hashtags and handles kept as words; lower case.
 */
export const signatureWordsOf = (title: string | undefined, text: string): string[] => {
  let body = `${title ?? ""}\n${text}`.replace(LINK, " ");
  body = body.replace(/^\s*(?:RT|MT)\b:?\s*(?:@[\p{L}\p{N}_.]+:?\s*)?/iu, " ");
  body = body.replace(/(?:\s+(?:via|h\/t|cc|by)\s+@[\p{L}\p{N}_.]+)+\s*$/iu, " ");
  body = body.replace(/(?:\s*[#@][\p{L}\p{N}_]+)+[\s\p{P}]*$/u, " ");
  return body.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
};

// A shingle's hash is its words' hashed in turn with the space between them: the same value as hashing the
// joined text, without building that text for every pair.
const shingleHash = (first: string, second: string | undefined): number =>
  (second === undefined ? fnvOn(FNV_OFFSET, first) : fnvPair(FNV_OFFSET, first, second)) >>> 0;

/** Words per shingle: pairs keep word order in the signature without letting one changed word change many shingles. */
const SHINGLE = 2;

/** MinHash functions: the signature estimates the Jaccard similarity of two texts' shingles to about ±0.1. */
export const SIGNATURE_HASHES = 16;
/** Signature values per band: a band is a key, so two texts meet when they agree on every value of one band. */
const BAND_ROWS = 2;
/** Bands looked up and claimed: each is a key written per story, so few; the rest of the signature is for comparing. */
const BANDS = 4;
const MINS = new Uint32Array(SIGNATURE_HASHES);
const HEX_PAD = "00000000";
const SEEDS = Array.from({ length: SIGNATURE_HASHES }, (_, i) => Math.imul(i + 1, 0x9e3779b1) >>> 0);

const mix = (x: number, seed: number): number => {
  let h = Math.imul(x ^ seed, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};

/** MinHash signature (SIGNATURE_HASHES values, as hex) of the words' shingles. */
export const signatureOf = (words: readonly string[]): string => {
  // Typed and reused: this runs for every ingested post, and ingest cost is budgeted (bench/README.md).
  const mins = MINS.fill(0xffffffff);
  const n = Math.max(1, words.length - SHINGLE + 1);
  for (let i = 0; i < n; i++) {
    const shingle = shingleHash(words[i] ?? "", words[i + 1]);
    for (let k = 0; k < SIGNATURE_HASHES; k++) {
      const h = mix(shingle, SEEDS[k]!);
      if (h < mins[k]!) mins[k] = h;
    }
  }
  let hex = "";
  for (let k = 0; k < SIGNATURE_HASHES; k++) {
    const digits = mins[k]!.toString(16);
    hex += HEX_PAD.slice(digits.length) + digits;
  }
  return hex;
};

/** The share of the signatures' values that agree: an estimate of the texts' shingle Jaccard similarity. */
export const similarityOf = (a: string, b: string): number => {
  let same = 0;
  for (let k = 0; k < SIGNATURE_HASHES; k++) if (a.slice(k * 8, k * 8 + 8) === b.slice(k * 8, k * 8 + 8)) same += 1;
  return same / SIGNATURE_HASHES;
};

/**
 * Texts this similar (estimated) are the same text (measured in bench/story-bench.ts on syndicated and
 * unrelated posts: see bench/README.md).
 */
export const SIMILARITY_THRESHOLD = 0.7;

/**
 * The band keys of a signature. Two texts of shingle similarity s agree on some band with probability
 * 1 - (1 - s^2)^8: 0.9997 at 0.8, 0.98 at 0.6, and only 0.2 for the 0.1 of unrelated posts about the same brand.
 */
export const bandsOf = (signature: string): string[] =>
  Array.from({ length: BANDS }, (_, i) => `b${i}:${signature.slice(i * 8 * BAND_ROWS, (i + 1) * 8 * BAND_ROWS)}`);

export interface StorySignals {
  /** `u:` keys of the pages linked. */
  links: string[];
  /** The text's MinHash signature, when there is enough text. */
  signature?: string;
  /** The `b<i>:` band keys of the signature, when there is enough text. */
  textKeys: string[];
}

export const storySignalsOf = (title: string | undefined, text: string): StorySignals => {
  const links = linksOf(title, text).map((l) => `u:${l}`);
  const words = signatureWordsOf(title, text);
  if (words.length < MIN_SIGNATURE_WORDS) return { links, textKeys: [] };
  const signature = signatureOf(words);
  return { links, signature, textKeys: bandsOf(signature) };
};
