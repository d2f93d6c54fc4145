import type { Clock, Collection, Doc, DocumentStore, Logger } from "@earshot/platform";

// Per-credential fixed-window rate limits whose counts live in the edge's store, so all gateway replicas
// share one budget. Writing the store on every request would put a store round trip (and, on the
// embedded store, a file append) in front of every call, so each replica counts locally and syncs:
// the first request of a credential in a window increments the shared counter and learns its value;
// later ones are counted in memory and pushed as one $inc every `syncMs`. Within a window, replicas
// can together admit at most (replicas × requests in one sync interval) over the limit; one replica
// alone is exact. Headers follow draft-ietf-httpapi-ratelimit-headers-10.

export const RATE_LIMIT_COLLECTION = "rate_limits";

export interface RateLimitPolicy {
  /** Requests per window. */
  limit: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  headers: Record<string, string>;
}

interface Counter extends Doc {
  count: number;
  expiresAt: Date;
}

interface LocalWindow {
  id: string;
  windowEnd: number;
  /** The shared count as of the last sync, including this replica's synced requests. */
  shared: number;
  /** Requests counted here and not yet added to the shared counter. */
  pending: number;
  /** Requests being added to the shared counter right now (counted until the store answers). */
  syncing: number;
  /** Resolves once the first sync of this window told us the shared count. */
  ready: Promise<void>;
}

export class RateLimiter {
  private readonly counters: Collection<Counter>;
  private readonly windows = new Map<string, LocalWindow>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    store: DocumentStore,
    private readonly clock: Clock,
    readonly policy: RateLimitPolicy,
    private readonly options: { syncMs?: number; logger?: Logger } = {},
  ) {
    this.counters = store.collection<Counter>(RATE_LIMIT_COLLECTION);
  }

  ensureIndexes(): Promise<void> {
    return this.counters.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  }

  private add(id: string, by: number, windowEnd: number): Promise<Counter | null> {
    return this.counters.findOneAndUpdate(
      { _id: id },
      { $inc: { count: by }, $set: { expiresAt: new Date(windowEnd + this.policy.windowSeconds * 1000) } },
      { upsert: true },
    );
  }

  async take(credentialId: string): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const windowMs = this.policy.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const windowEnd = windowStart + windowMs;
    const id = `${credentialId}:${windowStart}`;
    let w = this.windows.get(credentialId);
    if (!w || w.id !== id) {
      const fresh: LocalWindow = { id, windowEnd, shared: 0, pending: 0, syncing: 0, ready: Promise.resolve() };
      fresh.ready = this.add(id, 1, windowEnd).then((c) => {
        fresh.shared = c?.count ?? 1;
      });
      this.windows.set(credentialId, fresh);
      await fresh.ready;
      return this.decide(fresh.shared, windowEnd, now);
    }
    await w.ready;
    w.pending += 1;
    this.scheduleSync();
    return this.decide(w.shared + w.syncing + w.pending, windowEnd, now);
  }

  private decide(count: number, windowEnd: number, now: number): RateLimitDecision {
    const remaining = Math.max(0, this.policy.limit - count);
    const resetSeconds = Math.max(1, Math.ceil((windowEnd - now) / 1000));
    return {
      allowed: count <= this.policy.limit,
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

  /** Pushes locally counted requests to the shared counters and learns what other replicas counted. */
  async sync(): Promise<void> {
    const now = this.clock.now().getTime();
    for (const [credentialId, w] of this.windows) {
      if (w.windowEnd <= now && w.pending === 0) {
        this.windows.delete(credentialId);
        continue;
      }
      if (w.pending === 0) continue;
      const by = w.pending;
      w.pending -= by;
      w.syncing += by;
      try {
        const c = await this.add(w.id, by, w.windowEnd);
        w.shared = c?.count ?? w.shared + by;
      } catch (err) {
        w.pending += by;
        throw err;
      } finally {
        w.syncing -= by;
      }
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.sync().catch(() => undefined);
  }
}
