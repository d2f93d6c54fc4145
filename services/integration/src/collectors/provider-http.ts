import { ProviderMalformed, ProviderRateLimited, ProviderRejected, ProviderUnavailable } from "./provider-errors";

// Every call to a platform goes through here, so every collector honours rate limits and outages the
// same way:
// - 429 -> ProviderRateLimited with the reset the provider named: `Retry-After` (seconds or an HTTP date),
//   X's `x-rate-limit-reset` (epoch seconds) or Reddit's `X-Ratelimit-Reset` (seconds from now); a minute
//   when it named none.
// - 5xx and network failures are retried (`retries` times) after an exponential delay with full jitter,
//   then ProviderUnavailable.
// - other 4xx -> ProviderRejected; a 2xx that is not JSON -> ProviderMalformed.
// - A 2xx saying the window is used up (remaining 0) reports the reset in `rateLimit`, so the poller waits.

export interface ProviderHttpOptions {
  /** Retries of 5xx and network failures (default 2). */
  retries?: number;
  /** First retry delay in ms (default 500); doubles each time, full jitter. */
  retryBaseMs?: number;
  timeoutMs?: number;
  /** Jitter source, injectable for tests. */
  random?: () => number;
  now?: () => number;
  /** Largest body read (default 8 MiB). */
  maxBytes?: number;
}

export interface ProviderRequest {
  /** Names the provider in errors and logs. */
  source: string;
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface RateLimitState {
  remaining?: number;
  resetAt?: Date;
}

export interface ProviderResponse<T = unknown> {
  status: number;
  json: T;
  headers: Headers;
  rateLimit: RateLimitState;
}

const DEFAULT_RETRY_AFTER_MS = 60_000;

const num = (v: string | null): number | undefined => {
  if (v === null || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** The reset a response names, whichever header convention the provider uses. */
export const resetOf = (headers: Headers, now: number): Date | undefined => {
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null) {
    const seconds = num(retryAfter);
    if (seconds !== undefined) return new Date(now + Math.max(0, seconds) * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return new Date(Math.max(now, date));
  }
  // X: epoch seconds.
  const xReset = num(headers.get("x-rate-limit-reset"));
  if (xReset !== undefined) return new Date(Math.max(now, xReset * 1000));
  // Reddit: seconds until the window resets (at most its 10-minute window); GitHub: epoch seconds. The
  // same header name, told apart by size (header names are case-insensitive).
  const sharedReset = num(headers.get("x-ratelimit-reset"));
  if (sharedReset !== undefined && sharedReset > 1e9) return new Date(Math.max(now, sharedReset * 1000));
  if (sharedReset !== undefined) return new Date(now + Math.max(0, sharedReset) * 1000);
  // Bluesky's AppView and PDS (atproto): RateLimit-Reset in epoch seconds.
  const atprotoReset = num(headers.get("ratelimit-reset"));
  if (atprotoReset !== undefined && atprotoReset > 1e9) return new Date(Math.max(now, atprotoReset * 1000));
  return undefined;
};

export const rateLimitOf = (headers: Headers, now: number): RateLimitState => {
  const remaining = num(headers.get("x-rate-limit-remaining")) ?? num(headers.get("x-ratelimit-remaining"));
  const resetAt = resetOf(headers, now);
  return { ...(remaining !== undefined ? { remaining: Math.floor(remaining) } : {}), ...(resetAt ? { resetAt } : {}) };
};

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

const excerpt = (text: string) => text.replace(/\s+/g, " ").slice(0, 200);

const readLimited = async (res: Response, maxBytes: number): Promise<string> => {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`answer larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
};

export class ProviderHttp {
  private readonly retries: number;
  private readonly retryBaseMs: number;
  private readonly timeoutMs: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly maxBytes: number;

  constructor(options: ProviderHttpOptions = {}) {
    this.retries = options.retries ?? 2;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.maxBytes = options.maxBytes ?? 8 << 20;
  }

  async request<T = unknown>(req: ProviderRequest): Promise<ProviderResponse<T>> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      let text: string;
      try {
        const signal = req.signal ? AbortSignal.any([req.signal, AbortSignal.timeout(this.timeoutMs)]) : AbortSignal.timeout(this.timeoutMs);
        res = await fetch(req.url, { method: req.method ?? "GET", headers: req.headers, body: req.body, signal, redirect: "manual" });
        text = await readLimited(res, this.maxBytes);
      } catch (err) {
        if (req.signal?.aborted) throw err;
        if (attempt < this.retries) {
          await this.backoff(attempt, req.signal);
          continue;
        }
        throw new ProviderUnavailable(req.source, 0, err instanceof Error ? err.message : String(err));
      }
      const now = this.now();
      if (res.status === 429) throw new ProviderRateLimited(req.source, resetOf(res.headers, now) ?? new Date(now + DEFAULT_RETRY_AFTER_MS));
      if (res.status >= 500) {
        if (attempt < this.retries) {
          await this.backoff(attempt, req.signal);
          continue;
        }
        throw new ProviderUnavailable(req.source, res.status, excerpt(text));
      }
      if (res.status < 200 || res.status >= 300) throw new ProviderRejected(req.source, res.status, excerpt(text), text.slice(0, 4096), res.headers);
      let json: T;
      try {
        json = JSON.parse(text) as T;
      } catch {
        throw new ProviderMalformed(req.source, `not JSON: ${excerpt(text)}`);
      }
      return { status: res.status, json, headers: res.headers, rateLimit: rateLimitOf(res.headers, now) };
    }
  }

  private backoff(attempt: number, signal?: AbortSignal): Promise<void> {
    // Full jitter: a random delay up to the exponential bound, so replicas retrying together spread out.
    return sleep(Math.floor(this.random() * this.retryBaseMs * 2 ** attempt), signal);
  }
}
