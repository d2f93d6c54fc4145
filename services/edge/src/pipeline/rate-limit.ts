import { type Clock, type Collection, type Doc, type DocumentStore } from "@earshot/platform";

// Per-credential fixed-window rate limits, counted in the edge's store so all gateway replicas share one
// budget. Headers follow draft-ietf-httpapi-ratelimit-headers-10.

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

export class RateLimiter {
  private readonly counters: Collection<Counter>;

  constructor(
    store: DocumentStore,
    private readonly clock: Clock,
    readonly policy: RateLimitPolicy,
  ) {
    this.counters = store.collection<Counter>(RATE_LIMIT_COLLECTION);
  }

  ensureIndexes(): Promise<void> {
    return this.counters.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  }

  async take(credentialId: string): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const windowMs = this.policy.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const windowEnd = windowStart + windowMs;
    const counter = await this.counters.findOneAndUpdate(
      { _id: `${credentialId}:${windowStart}` },
      { $inc: { count: 1 }, $set: { expiresAt: new Date(windowEnd + windowMs) } },
      { upsert: true },
    );
    const count = counter?.count ?? 1;
    const remaining = Math.max(0, this.policy.limit - count);
    const resetSeconds = Math.max(1, Math.ceil((windowEnd - now) / 1000));
    const headers: Record<string, string> = {
      "RateLimit-Policy": `"default";q=${this.policy.limit};w=${this.policy.windowSeconds}`,
      RateLimit: `"default";r=${remaining};t=${resetSeconds}`,
    };
    return { allowed: count <= this.policy.limit, remaining, resetSeconds, headers };
  }
}
