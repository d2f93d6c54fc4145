// A fixed request window as X and Reddit count them: `limit` requests per `windowMs`, reset at the
// window's end. The simulators report it in each platform's headers.

export interface WindowState {
  limit: number;
  used: number;
  remaining: number;
  /** Epoch ms the window ends. */
  resetAtMs: number;
}

export class RateWindow {
  private start = Number.NEGATIVE_INFINITY;
  private used = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts one request at `now` and answers the window after it. */
  take(now: number): WindowState {
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    if (start !== this.start) {
      this.start = start;
      this.used = 0;
    }
    this.used += 1;
    return { limit: this.limit, used: this.used, remaining: Math.max(0, this.limit - this.used), resetAtMs: start + this.windowMs };
  }
}
