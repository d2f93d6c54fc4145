// What goes wrong talking to a platform, as the poller needs to tell it apart: a rate limit backs off
// that poller only until the reset; an outage was already retried; a rejection (bad credentials, bad
// query) is recorded as the source's last error; a malformed answer is skipped.

export class ProviderRateLimited extends Error {
  constructor(
    readonly source: string,
    /** When the provider says to come back. */
    readonly retryAt: Date,
    readonly status = 429,
  ) {
    super(`${source} rate limit reached; retry after ${retryAt.toISOString()}`);
    this.name = "ProviderRateLimited";
  }
}

export class ProviderUnavailable extends Error {
  constructor(
    readonly source: string,
    readonly status: number,
    detail: string,
  ) {
    super(`${source} unavailable (${status || "no answer"}): ${detail}`);
    this.name = "ProviderUnavailable";
  }
}

export class ProviderRejected extends Error {
  constructor(
    readonly source: string,
    readonly status: number,
    detail: string,
    /** The provider's answer (bounded), for collectors that tell its error reasons apart (YouTube's 403s). */
    readonly body = "",
    /** The answer's headers, for providers that signal limits in a 4xx other than 429 (YouTube's 403s). */
    readonly headers?: Headers,
  ) {
    super(`${source} answered ${status}: ${detail}`);
    this.name = "ProviderRejected";
  }
}

export class ProviderMalformed extends Error {
  constructor(
    readonly source: string,
    detail: string,
  ) {
    super(`${source} sent a malformed answer: ${detail}`);
    this.name = "ProviderMalformed";
  }
}

/** Daily quota spent (YouTube): not an error of the provider, a budget of ours. */
export class QuotaExhausted extends Error {
  constructor(
    readonly source: string,
    readonly resetAt: Date,
  ) {
    super(`${source} daily quota spent; resets ${resetAt.toISOString()}`);
    this.name = "QuotaExhausted";
  }
}

/**
 * Whether a refusal concerns the one item asked for (private, deleted, not visible to the account) rather
 * than the source: such an item is skipped and the poll goes on. A 401 is the credentials, never the item.
 */
export const isItemRefusal = (err: unknown): err is ProviderRejected => err instanceof ProviderRejected && err.status !== 401;

export type ProviderError = ProviderRateLimited | ProviderUnavailable | ProviderRejected | ProviderMalformed | QuotaExhausted;

export const isProviderError = (err: unknown): err is ProviderError =>
  err instanceof ProviderRateLimited || err instanceof ProviderUnavailable || err instanceof ProviderRejected || err instanceof ProviderMalformed || err instanceof QuotaExhausted;
