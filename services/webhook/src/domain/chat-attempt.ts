import { chatVerdict } from "../chat/provider";
import { packMessages } from "../chat/render";
import { maskedUrl } from "../chat/url";
import type { ChatFormat } from "../fields";
import type { DeliveryDoc, EndpointDoc } from "../store";
import { afterAttempt, attemptRecord, MAX_ATTEMPTS_KEPT, recordStreak } from "./attempt";
import type { DeliveryDeps } from "./deps";
import { recordOutcome } from "./outcomes";

// One request to a chat endpoint (Slack, Discord) for the deliveries claimed together: their messages joined
// into one (as many as the provider's limits let one message hold), sent unsigned (the URL is the secret),
// and each delivery's outcome recorded on its own row of the log, as a standard attempt's is. What the
// answer means (chat/provider.ts):
// - success: each carried delivery succeeded;
// - 429: not an attempt of the schedule: the deliveries wait the provider's Retry-After / retry_after and
//   go again at the same step (after MAX_RATE_LIMIT_WAITS such waits in a row the next 429 counts as a
//   failed attempt, so an endpoint that is always limited still ends);
// - a permanent error (the webhook is gone, the token is invalid, the payload refused): failed at once,
//   since retrying for a day helps nobody; the failing-endpoint rule then turns a dead endpoint off;
// - anything else (5xx, no answer, a timeout): the schedule's next step, as for standard endpoints.
// The deliveries the message had no room for are released to go in the next request.

/** 429 answers waited out in a row before one counts as a failed attempt of the schedule. */
export const MAX_RATE_LIMIT_WAITS = 10;

/** Deliveries one chat request may carry: the most either provider's message holds. */
export const CHAT_BATCH = 10;

export interface ChatAttempt {
  /** When the endpoint's next request may go: the provider's pace, or the wait a 429 asked for. */
  notBefore: Date;
}

/** The URL is the endpoint's secret: an error that quotes it (a refused redirect does) quotes it masked in the log. */
const withoutUrl = (text: string, url: string): string => {
  const spellings = [url, ...(URL.canParse(url) ? [new URL(url).href] : [])];
  return spellings.reduce((t, u) => t.split(u).join(maskedUrl(url)), text);
};

export const attemptChatBatch = async (deps: DeliveryDeps, format: ChatFormat, claimed: readonly DeliveryDoc[], endpoint: EndpointDoc): Promise<ChatAttempt> => {
  const now = deps.clock.now();
  const { body, count } = packMessages(format, claimed.map((d) => d.body));
  const carried = claimed.slice(0, count);
  const left = claimed.slice(count);
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": deps.userAgent };
  const result = await deps.send({ url: endpoint.url, headers, body });
  const verdict = chatVerdict(format, result);
  const notBefore = new Date(deps.clock.now().getTime() + verdict.waitMs);
  const attempt = attemptRecord(now, { ...result, error: withoutUrl(result.error, endpoint.url), response: withoutUrl(result.response, endpoint.url) });
  const next = (d: DeliveryDoc): DeliveryDoc => {
    if (verdict.outcome === "rate_limited" && (d.rateLimitWaits ?? 0) < MAX_RATE_LIMIT_WAITS) {
      return { ...d, headers, attempts: [...d.attempts, attempt].slice(-MAX_ATTEMPTS_KEPT), status: "retrying", nextAttemptAt: notBefore, rateLimitWaits: (d.rateLimitWaits ?? 0) + 1 };
    }
    return afterAttempt(deps, d, headers, attempt, verdict.outcome === "ok" ? "ok" : verdict.outcome === "permanent" ? "permanent" : "failed");
  };
  await Promise.all([
    ...carried.map((d) => recordOutcome(deps, d, next(d))),
    // Claimed but not carried: due again when the endpoint may take the next request (their budget is spent already).
    ...left.map((d) => recordOutcome(deps, d, { ...d, nextAttemptAt: notBefore })),
  ]);
  // The endpoint's turn ends: the next request, from any replica, waits for the provider's pace.
  await deps.collections.chatPaces.updateOne({ _id: endpoint._id }, { $set: { notBefore, updatedAt: deps.clock.now() }, $unset: { busyUntil: true } });
  // A 429 says nothing of the endpoint's health: the streak is left as it is.
  if (verdict.outcome !== "rate_limited") await recordStreak(deps, endpoint, verdict.outcome === "ok", now);
  return { notBefore };
};
