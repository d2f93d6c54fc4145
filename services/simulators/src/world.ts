import type { SimPlatform } from "./platform-simulator";
import { generatedText } from "./text";

// What the simulators share: a clock, the posts each platform holds (published through the control API
// or generated for the terms searched), faults to answer with, and a log of the requests received.
//
// Generation makes a search answer with posts that contain what was searched: the first time a platform
// sees a term, that term gets a post every `generateEveryMs` from `backfill` slots before that moment on.
// Generated posts are a pure function of (platform, term, slot), so asking twice gives the same posts.

/** Epoch of X's snowflake ids; every platform's ids derive from the same ordered key. */
export const SNOWFLAKE_EPOCH_MS = 1288834974657;

export interface SimAuthor {
  id: string;
  handle: string;
  name: string;
  followers: number;
}

export interface SimPost {
  platform: SimPlatform;
  /** Ordered by creation time, unique across a world: every platform id derives from it. */
  key: bigint;
  createdAtMs: number;
  title?: string;
  text: string;
  author: SimAuthor;
  lang: string;
  /** Reddit: the community. */
  subreddit?: string;
  /** YouTube: the channel. */
  channelId?: string;
  channelTitle?: string;
  /** Comment of (platform id of the parent post), for Reddit t1, YouTube comment threads, LinkedIn comments. */
  parentKey?: bigint;
  kind: "post" | "comment";
  /** LinkedIn: the organization the post mentions or comments on. */
  organizationUrn?: string;
  likes: number;
  replies: number;
  shares: number;
  views: number;
}

export type PublishInput = Partial<Omit<SimPost, "platform" | "key" | "author">> & { text: string; author?: Partial<SimAuthor> };

export interface Fault {
  status: number;
  /** Requests left to answer with it. */
  count: number;
  retryAfterSeconds: number;
  /** Only requests whose path and query (decoded) contain this answer with it: one video, one post. */
  matching?: string;
  /** The platform's reason for the error, where it names one (YouTube's `errors[].reason`). */
  reason?: string;
}

export type FaultInput = { status: number; count?: number; retryAfterSeconds?: number; matching?: string; reason?: string };

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface SearchSpec {
  /** Phrases of which a post must contain one (case-insensitive). */
  anyOf: string[];
  /** Phrases a post must not contain. */
  noneOf?: string[];
  lang?: string[];
  subreddit?: string;
  channelId?: string;
  kind?: SimPost["kind"];
  /** Created strictly after / at or before (epoch ms). */
  afterMs?: number;
  untilMs?: number;
}

export interface WorldOptions {
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
  /** Whether searches create posts for the terms they name (off: only published posts exist). */
  generate?: boolean;
  generateEveryMs?: number;
  /**
   * Requests per rate window the X (15 min, default 450), Reddit (10 min, default 1,000) and GitHub (a
   * minute, default 10 without a token; three times that with one) simulators allow.
   */
  rateLimits?: { x?: number; reddit?: number; github?: number };
  backfill?: number;
  seed?: number;
  /**
   * Streams (Bluesky's firehose) publish a post about one of the searched terms this often; unset, they
   * carry only what is published (tests).
   */
  streamEveryMs?: number;
}

/** Requests of each platform the log keeps (the newest). */
export const LOG_KEPT = 10_000;

const fnv1a = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
};

export const normalizeTerm = (s: string): string => s.normalize("NFC").toLowerCase().replace(/\s+/g, " ").trim();

const containsPhrase = (haystack: string, phrase: string): boolean => haystack.includes(normalizeTerm(phrase));

export class SimWorld {
  readonly now: () => number;
  readonly generate: boolean;
  readonly generateEveryMs: number;
  readonly backfill: number;
  readonly seed: number;
  readonly streamEveryMs: number | undefined;
  readonly rateLimits: { x?: number; reddit?: number; github?: number };
  private readonly published = new Map<SimPlatform, SimPost[]>();
  private readonly firstSeen = new Map<string, number>();
  private readonly faults = new Map<SimPlatform, Fault[]>();
  private readonly malformed = new Map<SimPlatform, number>();
  private readonly logs = new Map<SimPlatform, LoggedRequest[]>();
  private readonly counts = new Map<SimPlatform, number>();
  private counter = 0;
  private readonly listeners = new Map<SimPlatform, Set<(post: SimPost) => void>>();

  constructor(options: WorldOptions = {}) {
    this.now = options.now ?? Date.now;
    this.generate = options.generate ?? true;
    this.generateEveryMs = options.generateEveryMs ?? 60_000;
    this.rateLimits = options.rateLimits ?? {};
    this.backfill = options.backfill ?? 3;
    this.seed = options.seed ?? 20261123;
    this.streamEveryMs = options.streamEveryMs;
  }

  /** A key for a post created at `ms`: ordered by time, unique by `salt` within a millisecond. */
  keyAt(ms: number, salt: number): bigint {
    return (BigInt(Math.max(0, Math.floor(ms) - SNOWFLAKE_EPOCH_MS)) << 22n) | BigInt(salt & 0x3fffff);
  }

  /** Publishes a post now (or at `createdAtMs`): it appears to every later search that it matches. */
  publish(platform: SimPlatform, input: PublishInput): SimPost {
    const createdAtMs = input.createdAtMs ?? this.now();
    this.counter = (this.counter + 1) & 0x3fffff;
    const handle = input.author?.handle ?? `sim_user_${this.counter}`;
    const post: SimPost = {
      platform,
      kind: input.kind ?? "post",
      lang: input.lang ?? "en",
      likes: 0,
      replies: 0,
      shares: 0,
      views: 0,
      ...input,
      key: this.keyAt(createdAtMs, 0x200000 | this.counter),
      createdAtMs,
      author: { id: input.author?.id ?? `${fnv1a(handle)}`, handle, name: input.author?.name ?? handle, followers: input.author?.followers ?? 100 },
    };
    const list = this.published.get(platform) ?? [];
    list.push(post);
    this.published.set(platform, list);
    for (const listener of this.listeners.get(platform) ?? []) listener(post);
    return post;
  }

  /** Calls `listener` with each post published on `platform` from now on (a stream's subscribers); returns the unsubscribe. */
  onPublish(platform: SimPlatform, listener: (post: SimPost) => void): () => void {
    const set = this.listeners.get(platform) ?? new Set();
    set.add(listener);
    this.listeners.set(platform, set);
    return () => set.delete(listener);
  }

  /** Every post of a platform matching the search, newest first (published and generated). */
  search(platform: SimPlatform, spec: SearchSpec): SimPost[] {
    const now = this.now();
    const terms = [...new Set(spec.anyOf.map(normalizeTerm).filter(Boolean))];
    const found = new Map<bigint, SimPost>();
    const matches = (p: SimPost) => {
      if (spec.kind && p.kind !== spec.kind) return false;
      if (p.createdAtMs > now) return false;
      if (spec.afterMs !== undefined && p.createdAtMs <= spec.afterMs) return false;
      if (spec.untilMs !== undefined && p.createdAtMs > spec.untilMs) return false;
      if (spec.lang?.length && !spec.lang.includes(p.lang)) return false;
      if (spec.subreddit && p.subreddit?.toLowerCase() !== spec.subreddit.toLowerCase()) return false;
      if (spec.channelId && p.channelId !== spec.channelId) return false;
      const hay = normalizeTerm(`${p.title ?? ""} ${p.text}`);
      if (!terms.some((t) => containsPhrase(hay, t))) return false;
      return !(spec.noneOf ?? []).some((t) => containsPhrase(hay, t));
    };
    for (const p of this.published.get(platform) ?? []) if (matches(p)) found.set(p.key, p);
    if (this.generate) {
      for (const term of terms) for (const p of this.generatedFor(platform, term, spec, now)) if (matches(p)) found.set(p.key, p);
    }
    return [...found.values()].sort((a, b) => (a.key === b.key ? 0 : a.key > b.key ? -1 : 1));
  }

  /** Published posts of a platform that satisfy `keep`, newest first (for feeds that are not searches). */
  posts(platform: SimPlatform, keep: (p: SimPost) => boolean = () => true): SimPost[] {
    return (this.published.get(platform) ?? []).filter((p) => p.createdAtMs <= this.now() && keep(p)).sort((a, b) => (a.key > b.key ? -1 : a.key < b.key ? 1 : 0));
  }

  /** Terms searched on any platform, most recently first seen first (LinkedIn's simulated Pages are mentioned with them). */
  searchedTerms(): string[] {
    return [...this.firstSeen.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k.slice(k.indexOf("\u0000") + 1)).filter((t, i, all) => all.indexOf(t) === i);
  }

  /** Generated posts of a term between its first sighting's backfill and now (bounded: at most 500). */
  generatedFor(platform: SimPlatform, term: string, spec: Pick<SearchSpec, "subreddit" | "channelId" | "lang" | "kind">, now: number): SimPost[] {
    const seenKey = `${platform}\u0000${term}`;
    const first = this.firstSeen.get(seenKey) ?? now;
    if (!this.firstSeen.has(seenKey)) this.firstSeen.set(seenKey, now);
    const every = this.generateEveryMs;
    const startSlot = Math.floor(first / every) - this.backfill;
    const endSlot = Math.floor(now / every);
    const out: SimPost[] = [];
    for (let slot = Math.max(startSlot, endSlot - 500); slot <= endSlot; slot++) {
      out.push(this.generatedPost(platform, term, slot, spec));
    }
    return out;
  }

  /**
   * The generated post with this key, when it is one of `terms` (normalized) on this platform and was
   * created by now. Generated posts are a pure function of (seed, platform, term, slot) and their key
   * carries the slot's time and the term's hash, so a post answered by an earlier run of the simulators
   * (before a restart of Earshot) is found again, as a platform keeps what it has published.
   */
  generatedByKey(platform: SimPlatform, key: bigint, terms: string[], spec: Pick<SearchSpec, "kind"> = {}): SimPost | undefined {
    if (!this.generate) return undefined;
    const salt = Number(key & 0x3fffffn);
    const createdAtMs = Number(key >> 22n) + SNOWFLAKE_EPOCH_MS;
    if (createdAtMs > this.now()) return undefined;
    const slot = Math.floor(createdAtMs / this.generateEveryMs);
    for (const term of new Set(terms.map(normalizeTerm).filter(Boolean))) {
      if ((fnv1a(`${platform}:${term}`) & 0x1fffff) !== salt) continue;
      const post = this.generatedPost(platform, term, slot, spec);
      if (post.key === key) return post;
    }
    return undefined;
  }

  private generatedPost(platform: SimPlatform, term: string, slot: number, spec: Pick<SearchSpec, "subreddit" | "channelId" | "lang" | "kind">): SimPost {
    const h = fnv1a(`${this.seed}:${platform}:${term}:${slot}`);
    const createdAtMs = slot * this.generateEveryMs + (h % Math.max(1, this.generateEveryMs));
    const n = h % 97;
    const { title, text } = generatedText(term, h);
    return {
      platform,
      key: this.keyAt(createdAtMs, fnv1a(`${platform}:${term}`) & 0x1fffff),
      createdAtMs,
      kind: spec.kind ?? "post",
      title: platform === "x" || platform === "linkedin" ? undefined : title,
      text,
      lang: spec.lang?.[0] ?? "en",
      author: { id: `${100000 + n}`, handle: `sim_${platform}_${n}`, name: `Simulated ${platform} user ${n}`, followers: (h >>> 8) % 50_000 },
      subreddit: platform === "reddit" ? (spec.subreddit ?? "technology") : undefined,
      channelId: platform === "youtube" ? (spec.channelId ?? `UCsim${(n % 10).toString().padStart(18, "0")}`) : undefined,
      channelTitle: platform === "youtube" ? `Simulated channel ${n % 10}` : undefined,
      likes: h % 500,
      replies: (h >>> 4) % 50,
      shares: (h >>> 12) % 40,
      views: (h >>> 3) % 100_000,
    };
  }

  /**
   * The next `count` requests to a platform's API answer `status` (429 carries the platform's reset headers);
   * with `matching`, only the requests naming that text in their path or query (one item's fetch).
   */
  fail(platform: SimPlatform, fault: FaultInput): void {
    const list = this.faults.get(platform) ?? [];
    list.push({
      status: fault.status,
      count: fault.count ?? 1,
      retryAfterSeconds: fault.retryAfterSeconds ?? 60,
      ...(fault.matching ? { matching: fault.matching } : {}),
      ...(fault.reason ? { reason: fault.reason } : {}),
    });
    this.faults.set(platform, list);
  }

  /** The fault the request to `target` (its decoded path and query) answers with, if one is pending (consumes it). */
  takeFault(platform: SimPlatform, target = ""): Fault | undefined {
    const list = this.faults.get(platform);
    const at = list?.findIndex((f) => f.matching === undefined || target.includes(f.matching)) ?? -1;
    const fault = list?.[at];
    if (!list || !fault) return undefined;
    fault.count -= 1;
    if (fault.count <= 0) list.splice(at, 1);
    return { ...fault };
  }

  /** The next `count` successful answers of a platform's search are malformed (bad JSON or bad items). */
  malform(platform: SimPlatform, count = 1): void {
    this.malformed.set(platform, (this.malformed.get(platform) ?? 0) + count);
  }

  takeMalformed(platform: SimPlatform): boolean {
    const left = this.malformed.get(platform) ?? 0;
    if (left <= 0) return false;
    this.malformed.set(platform, left - 1);
    return true;
  }

  /** The log keeps the last LOG_KEPT requests of each platform; `requestCount` counts them all. */
  log(platform: SimPlatform, entry: Omit<LoggedRequest, "at">): void {
    this.counts.set(platform, (this.counts.get(platform) ?? 0) + 1);
    const list = this.logs.get(platform) ?? [];
    list.push({ ...entry, at: this.now() });
    if (list.length > LOG_KEPT) list.splice(0, list.length - LOG_KEPT);
    this.logs.set(platform, list);
  }

  /** The last LOG_KEPT requests received (older ones are dropped: count with `requestCount`). */
  requests(platform: SimPlatform): LoggedRequest[] {
    return [...(this.logs.get(platform) ?? [])];
  }

  /**
   * Every request a platform received since the start (or the last reset), including those the log no
   * longer holds: what a measurement of requests over time must read, since the log's length stops
   * growing at LOG_KEPT.
   */
  requestCount(platform: SimPlatform): number {
    return this.counts.get(platform) ?? 0;
  }

  /** Forgets published posts, faults, logs and sightings. */
  reset(): void {
    this.published.clear();
    this.firstSeen.clear();
    this.faults.clear();
    this.malformed.clear();
    this.logs.clear();
    this.counts.clear();
  }
}
