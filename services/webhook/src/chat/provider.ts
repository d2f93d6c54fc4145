import type { ChatFormat } from "../fields";
import type { SendResult } from "../domain/deps";

// What a chat provider's answer means for the deliveries it carried and for the endpoint's next request.
// Slack: 200 `ok`; 400/403/404/410 (`invalid_payload`, `invalid_token`, `channel_not_found`, `no_service`…)
// are permanent, retrying cannot help; 429 with Retry-After (seconds); about one message a second per
// webhook. Discord: 204 (or 200); 400/401/403/404 (`Unknown Webhook`) are permanent; 429 with a JSON body
// `{ retry_after }` (seconds, a fraction) and Retry-After; X-RateLimit-Remaining 0 and
// X-RateLimit-Reset-After (seconds) say to wait before the next request.

export type ChatOutcome = "ok" | "rate_limited" | "permanent" | "retry";

export interface ChatVerdict {
  outcome: ChatOutcome;
  /** How long the endpoint's next request must wait after this answer. */
  waitMs: number;
}

/** Slack's pace: one message a second per webhook. */
export const SLACK_INTERVAL_MS = 1000;
/** A 429 that says nothing of when: wait a second. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 1000;
/** A provider's wait is honoured up to an hour; a longer one is waited out in hours, not believed whole. */
export const MAX_WAIT_MS = 3600 * 1000;

const PERMANENT: Record<ChatFormat, ReadonlySet<number>> = {
  slack: new Set([400, 403, 404, 410]),
  discord: new Set([400, 401, 403, 404]),
};

const seconds = (value: unknown): number | undefined => {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

const header = (result: SendResult, name: string): string | undefined => result.headers?.[name];

/** Discord's `retry_after` from a 429's JSON body. */
const retryAfterOfBody = (response: string): number | undefined => {
  try {
    return seconds((JSON.parse(response) as { retry_after?: unknown }).retry_after);
  } catch {
    return undefined;
  }
};

const clamp = (ms: number): number => Math.min(MAX_WAIT_MS, Math.max(0, Math.ceil(ms)));

export const chatVerdict = (format: ChatFormat, result: SendResult): ChatVerdict => {
  const ok = result.statusCode >= 200 && result.statusCode < 300;
  const floor = format === "slack" ? SLACK_INTERVAL_MS : 0;
  if (result.statusCode === 429) {
    const after =
      (format === "discord" ? retryAfterOfBody(result.response) : undefined) ??
      seconds(header(result, "retry-after")) ??
      seconds(header(result, "x-ratelimit-reset-after"));
    return { outcome: "rate_limited", waitMs: clamp(Math.max(floor, after === undefined ? DEFAULT_RATE_LIMIT_WAIT_MS : after * 1000)) };
  }
  // Discord says when its bucket is empty: the next request waits for the reset rather than earn a 429.
  const bucketWait = format === "discord" && header(result, "x-ratelimit-remaining") === "0" ? (seconds(header(result, "x-ratelimit-reset-after")) ?? 0) * 1000 : 0;
  const waitMs = clamp(Math.max(floor, bucketWait));
  if (ok) return { outcome: "ok", waitMs };
  return { outcome: PERMANENT[format].has(result.statusCode) ? "permanent" : "retry", waitMs };
};
