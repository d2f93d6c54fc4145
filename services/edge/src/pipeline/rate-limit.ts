import type { Clock, Collection, Doc, DocumentStore, Logger } from "@earshot/platform";

// Sliding-window rate limits per key (a credential, or a client address) whose counts live in the edge's
// store, so all gateway replicas share one budget.
//
// The window slides in small buckets (1 s by default): a request is admitted while the requests admitted
// in every bucket that overlaps the last `windowSeconds` stay within the limit. No span of
// `windowSeconds` can then admit more than `limit` requests (a fixed window admits twice that across its
// boundary); the price is that a bucket counts until its last moment has left the window, up to one
// bucket longer than strictly needed. Refused requests are not counted, so a client that keeps knocking
// gets its budget back as its admitted requests age out.
//
// Writing the store on every request would put a store round trip (and, on the embedded store, a file
// append) in front of every call, so each replica counts locally and syncs: the first request of a key
// on a replica loads the key's buckets from the store; later ones are counted in memory and pushed as
// one $inc per bucket every `syncMs`, after which the replica re-reads the key's shared buckets to learn
// what the others counted. Replicas can together admit more than the limit by what the others admitted
// since this one last synced; one replica alone is exact. Headers follow draft-ietf-httpapi-ratelimit-headers-10.

export const RATE_LIMIT_COLLECTION = "rate_limits";

export interface RateLimitPolicy {
  /** Requests per window. */
  limit: number;
  windowSeconds: number;
  /** How finely the window slides; divides windowSeconds. 1 s unless set. */
  bucketSeconds?: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until quota comes back: one more request when allowed, the next admitted one when refused. */
  resetSeconds: number;
  headers: Record<string, string>;
}

interface Counter extends Doc {
  key: string;
  /** Start of the bucket, epoch milliseconds. */
  start: number;
  count: number;
  expiresAt: Date;
}

interface Bucket {
  /** The shared count as of the last load or sync, including this replica's synced requests. */
  shared: number;
  /** Requests admitted here and not yet added to the shared counter. */
  pending: number;
  /** Requests being added to the shared counter right now (counted until the store answers). */
  syncing: number;
}

interface LocalKey {
  buckets: Map<number, Bucket>;
  /** Resolves once the key's buckets were loaded from the store. */
  ready: Promise<void>;
  loaded: boolean;
}

const total = (b: Bucket) => b.shared + b.syncing + b.pending;

export class RateLimiter {
  private readonly counters: Collection<Counter>;
  private readonly keys = new Map<string, LocalKey>();
  private readonly windowMs: number;
  private readonly bucketMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    store: DocumentStore,
    private readonly clock: Clock,
    readonly policy: RateLimitPolicy,
    private readonly options: { syncMs?: number; logger?: Logger; maxKeys?: number } = {},
  ) {
    this.counters = store.collection<Counter>(RATE_LIMIT_COLLECTION);
    this.windowMs = policy.windowSeconds * 1000;
    this.bucketMs = (policy.bucketSeconds ?? 1) * 1000;
  }

  async ensureIndexes(): Promise<void> {
    await this.counters.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
    await this.counters.ensureIndex({ fields: { key: 1, start: 1 } });
  }

  /**
   * Admits and counts `cost` units of `key` (one request, or the messages of a batch), or refuses them all
   * (refusals are not counted).
   */
  async take(key: string, cost = 1): Promise<RateLimitDecision> {
    return this.judge(key, Math.max(1, Math.ceil(cost)));
  }

  /** Whether a request of `key` would be admitted now, counting nothing. */
  async peek(key: string): Promise<RateLimitDecision> {
    return this.judge(key, 0);
  }

  private async judge(key: string, cost: number): Promise<RateLimitDecision> {
    const local = this.local(key);
    await local.ready;
    // Most recently used last, so the map's cap evicts idle keys first; a sync may have dropped the key
    // while this request waited.
    this.keys.delete(key);
    this.keys.set(key, local);
    const now = this.clock.now().getTime();
    const current = now - (now % this.bucketMs);
    const counted = this.counted(local, now);
    const used = counted.reduce((sum, [, b]) => sum + total(b), 0);
    if (used >= this.policy.limit || used + cost > this.policy.limit) return this.decide(false, used, counted, now, cost);
    if (cost === 0) {
      // Nothing counted here: let the next sync drop the entry if nothing else counts for the key.
      if (counted.length === 0) this.scheduleSync();
      return this.decide(true, used, counted, now);
    }
    let bucket = local.buckets.get(current);
    if (!bucket) {
      bucket = { shared: 0, pending: 0, syncing: 0 };
      local.buckets.set(current, bucket);
      counted.push([current, bucket]);
    }
    bucket.pending += cost;
    this.scheduleSync();
    return this.decide(true, used + cost, counted, now);
  }

  private local(key: string): LocalKey {
    let local = this.keys.get(key);
    if (!local) {
      const fresh: LocalKey = { buckets: new Map(), ready: Promise.resolve(), loaded: false };
      fresh.ready = this.counters.find({ key, start: { $gte: this.oldestCounted(this.clock.now().getTime()) } }).then((docs) => {
        for (const d of docs) {
          const b = fresh.buckets.get(d.start);
          if (b) b.shared = Math.max(b.shared, d.count);
          else fresh.buckets.set(d.start, { shared: d.count, pending: 0, syncing: 0 });
        }
        fresh.loaded = true;
      });
      // A failed load is retried by the next request rather than remembered.
      fresh.ready.catch(() => this.keys.delete(key));
      this.evictIdle();
      this.keys.set(key, fresh);
      local = fresh;
    }
    return local;
  }

  /**
   * Keeps the map within `maxKeys` (10,000 unless set; a scan of many addresses would grow it without end)
   * by dropping the least recently used keys with nothing waiting to be synced; their counts stay in the
   * store and are loaded again if the key comes back.
   */
  private evictIdle(): void {
    const max = this.options.maxKeys ?? 10_000;
    if (this.keys.size < max) return;
    for (const [key, local] of this.keys) {
      if (this.keys.size < max) break;
      if (!local.loaded) continue;
      if ([...local.buckets.values()].some((b) => b.pending > 0 || b.syncing > 0)) continue;
      this.keys.delete(key);
    }
  }

  /** Start of the oldest bucket that still overlaps the window ending now. */
  private oldestCounted(now: number): number {
    return now - this.windowMs - this.bucketMs + 1;
  }

  /** The buckets overlapping the window ending now, oldest first. */
  private counted(local: LocalKey, now: number): Array<[number, Bucket]> {
    const from = this.oldestCounted(now);
    return [...local.buckets].filter(([start]) => start >= from).sort(([a], [b]) => a - b);
  }

  private decide(allowed: boolean, used: number, counted: Array<[number, Bucket]>, now: number, cost = 1): RateLimitDecision {
    const remaining = Math.max(0, this.policy.limit - used);
    // Units that must age out: room for the refused cost when refused, one more unit when admitted.
    let toFree = allowed ? 1 : used + Math.max(1, cost) - this.policy.limit;
    let resetMs = this.windowMs;
    for (const [start, b] of counted) {
      toFree -= total(b);
      if (toFree <= 0) {
        resetMs = start + this.bucketMs + this.windowMs - now;
        break;
      }
    }
    const resetSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    return {
      allowed,
      remaining,
      resetSeconds,
      headers: {
        "RateLimit-Policy": `"default";q=${this.policy.limit};w=${this.policy.windowSeconds}`,
        RateLimit: `"default";r=${remaining};t=${resetSeconds}`,
      },
    };
  }

  private scheduleSync(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sync().catch((err: unknown) => this.options.logger?.warn({ err }, "rate limit sync failed; will retry"));
    }, this.options.syncMs ?? 250);
    this.timer.unref();
  }

  private add(key: string, start: number, by: number): Promise<Counter | null> {
    return this.counters.findOneAndUpdate(
      { _id: `${key}:${start}` },
      { $inc: { count: by }, $set: { key, start, expiresAt: new Date(start + this.bucketMs + this.windowMs) } },
      { upsert: true },
    );
  }

  /**
   * Pushes locally counted requests to the shared counters, then re-reads every known key's shared
   * buckets: a replica learns what the others counted in buckets it never wrote itself too, so N replicas
   * together exceed a limit only by what was admitted between two syncs. Keys with nothing counted in the
   * window are dropped.
   */
  async sync(): Promise<void> {
    const from = this.oldestCounted(this.clock.now().getTime());
    let failure: unknown;
    const held = [...this.keys];
    for (const [key, local] of held) {
      for (const [start, b] of local.buckets) {
        if (b.pending === 0) {
          if (start < from && b.syncing === 0) local.buckets.delete(start);
          continue;
        }
        const by = b.pending;
        b.pending -= by;
        b.syncing += by;
        try {
          const c = await this.add(key, start, by);
          b.shared = c?.count ?? b.shared + by;
        } catch (err) {
          b.pending += by;
          failure = err;
        } finally {
          b.syncing -= by;
        }
      }
    }
    // One read for every key this replica counts: what other replicas added to its buckets meanwhile.
    const loaded = held.filter(([, local]) => local.loaded).map(([key]) => key);
    if (loaded.length > 0) {
      try {
        for (const d of await this.counters.find({ key: { $in: loaded }, start: { $gte: from } })) {
          const local = this.keys.get(d.key);
          const b = local?.buckets.get(d.start);
          // Shared counts only grow; a push of this replica's that the store answered meanwhile is in both.
          if (b) b.shared = Math.max(b.shared, d.count);
          else local?.buckets.set(d.start, { shared: d.count, pending: 0, syncing: 0 });
        }
      } catch (err) {
        failure = err;
      }
    }
    // Keys with nothing counted in the window are dropped (a key that arrived during the sync is left alone).
    for (const [key, local] of held) {
      if (local.buckets.size === 0 && this.keys.get(key) === local) this.keys.delete(key);
    }
    if (failure !== undefined) {
      this.scheduleSync();
      throw failure;
    }
  }

  /** Keys this replica holds counts for (bounded by `maxKeys`). */
  get size(): number {
    return this.keys.size;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.sync().catch(() => undefined);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
