import type { PollOutcome } from "./collector";
import type { RateLimitState } from "./provider-http";

// The provider's request window as a poll sees it across its calls: what is left after the latest
// answer, and, once an answer says nothing is left, when to come back (the poll stops asking then).

export class QueryBudget {
  private remaining?: number;
  private until?: Date;

  note(rateLimit: RateLimitState): void {
    if (rateLimit.remaining === undefined) return;
    this.remaining = rateLimit.remaining;
    if (rateLimit.remaining <= 0 && rateLimit.resetAt) this.until = rateLimit.resetAt;
  }

  get exhausted(): boolean {
    return this.until !== undefined;
  }

  /** The outcome fields: `quotaLeft` when the provider reported one, `backoffUntil` when it ran out. */
  outcome(): Pick<PollOutcome, "quotaLeft" | "backoffUntil"> {
    return { ...(this.remaining !== undefined ? { quotaLeft: this.remaining } : {}), ...(this.until ? { backoffUntil: this.until } : {}) };
  }
}
