import { appLinks } from "@earshot/contracts";
import { isVersionConflict } from "@earshot/platform/core";
import { maskedUrl } from "../chat/url";
import { isChatFormat } from "../fields";
import type { AttemptDoc, DeliveryDoc, EndpointDoc } from "../store";
import type { DeliveryDeps, SendResult } from "./deps";
import { recordOutcome } from "./outcomes";
import { signatureHeader } from "./signing";

// One attempt of a claimed delivery (the claim checked its endpoint and workspace and spent its budget):
// sign with every live secret, send, and record the outcome with the next step of the schedule. The
// outcome commits at the version the claim produced: if the delivery changed meanwhile (a redelivery), the
// outcome is dropped rather than overwrite it.

/** An endpoint failing this long is deactivated and its owner emailed. */
export const FAILING_LIMIT_MS = 5 * 24 * 3600 * 1000;

/** Attempts kept per delivery: enough to read a whole schedule and a few redeliveries. */
export const MAX_ATTEMPTS_KEPT = 50;

const liveSecrets = (deps: DeliveryDeps, endpoint: EndpointDoc, now: Date): string[] =>
  endpoint.secrets.filter((s) => !s.expiresAt || s.expiresAt > now).map((s) => deps.sealer.open(s.sealed));

/**
 * Failure streak bookkeeping: nothing to write on the happy path. Past the limit the endpoint stops: the
 * first attempt to see it turns it off (a conditional update, so concurrent attempts agree on one winner,
 * and a new version, so an API write that read it before cannot turn it back on unseen). The API shows it
 * inactive for `failing` at once: it reads the same document. Returns when the streak began when this
 * attempt stopped it.
 */
const streakAfter = async (deps: DeliveryDeps, endpoint: EndpointDoc, ok: boolean, now: Date): Promise<Date | undefined> => {
  if (ok) {
    if (endpoint.failingSince) await deps.collections.endpoints.updateOne({ _id: endpoint._id }, { $unset: { failingSince: true } });
    return undefined;
  }
  const since = endpoint.failingSince ?? now;
  if (!endpoint.failingSince) await deps.collections.endpoints.updateOne({ _id: endpoint._id, failingSince: { $exists: false } }, { $set: { failingSince: now } });
  if (now.getTime() - since.getTime() < FAILING_LIMIT_MS) return undefined;
  for (let round = 0; round < 5; round++) {
    const current = await deps.collections.endpoints.findById(endpoint._id);
    if (!current?.active) return undefined;
    try {
      await deps.collections.endpoints.updateVersioned(current._id, current._v ?? 1, { $set: { active: false, deactivatedReason: "failing", updatedAt: now } });
      return since;
    } catch (err) {
      // Another attempt or an API write got there first: read it again (another attempt will have turned it off).
      if (!isVersionConflict(err)) throw err;
    }
  }
  return undefined;
};

const emailOwner = async (deps: DeliveryDeps, endpoint: EndpointDoc, since: Date): Promise<void> => {
  const owner = (await deps.collections.workspaces.findById(endpoint.workspaceId))?.ownerEmail;
  if (!owner) {
    deps.logger.warn({ endpointId: endpoint._id }, "webhook endpoint deactivated after 5 days of failures; the workspace owner's address is unknown");
    return;
  }
  await deps.mailer.send({ to: owner, ...endpointDeactivatedEmail(endpoint, since, deps.publicUrl) });
};

/** The mail telling the workspace owner an endpoint was deactivated after failing for 5 days. */
export const endpointDeactivatedEmail = (endpoint: Pick<EndpointDoc, "_id" | "projectId" | "url" | "format">, since: Date, publicUrl: string): { subject: string; text: string } => ({
  subject: "Earshot stopped sending to a failing webhook endpoint",
  text:
    `Every delivery to the webhook endpoint ${endpoint._id} (${isChatFormat(endpoint.format) ? maskedUrl(endpoint.url) : endpoint.url}) has failed since ${since.toISOString()}, ` +
    "so Earshot has deactivated it and stopped sending to it.\n\n" +
    "Fix the receiver, then turn the endpoint back on (update_webhook with active: true). " +
    "Its delivery log (list_webhook_deliveries) shows each attempt's status and answer, and failed deliveries can be redelivered" +
    // A project's endpoint has its page in the web app (its delivery log, redelivery); a workspace-wide one only the API.
    (endpoint.projectId ? `: ${appLinks(publicUrl).webhook(endpoint.projectId, endpoint._id)}\n` : ".\n"),
});

/** An attempt as the delivery log keeps it (the answer's headers are the worker's, not the log's). */
export const attemptRecord = (at: Date, result: SendResult): AttemptDoc => ({
  at,
  statusCode: result.statusCode,
  durationMs: result.durationMs,
  response: result.response,
  error: result.error,
});

/**
 * A delivery after an attempt: succeeded, or at the schedule's next step (`retrying`, or `failed` once the
 * schedule is spent, or at once when the receiver said retrying cannot help).
 */
export const afterAttempt = (deps: DeliveryDeps, claimed: DeliveryDoc, headers: Record<string, string>, attempt: AttemptDoc, verdict: "ok" | "failed" | "permanent"): DeliveryDoc => {
  const step = claimed.step + 1;
  const retryIn = verdict === "failed" ? deps.schedule[step] : undefined;
  const { rateLimitWaits: _waits, ...rest } = claimed;
  return {
    ...rest,
    headers,
    attempts: [...claimed.attempts, attempt].slice(-MAX_ATTEMPTS_KEPT),
    step,
    ...(verdict === "ok"
      ? { status: "succeeded", nextAttemptAt: undefined }
      : retryIn === undefined
        ? { status: "failed", nextAttemptAt: undefined }
        : { status: "retrying", nextAttemptAt: new Date(deps.clock.now().getTime() + retryIn * 1000) }),
  };
};

/** The failing-endpoint rule after an attempt: a success ends the streak; a failure extends it and may turn the endpoint off. */
export const recordStreak = async (deps: DeliveryDeps, endpoint: EndpointDoc, ok: boolean, now: Date): Promise<void> => {
  const stoppedSince = await streakAfter(deps, endpoint, ok, now);
  if (stoppedSince) await emailOwner(deps, endpoint, stoppedSince);
};

export const attemptDelivery = async (deps: DeliveryDeps, claimed: DeliveryDoc, endpoint: EndpointDoc): Promise<void> => {
  const now = deps.clock.now();
  // A fresh timestamp per attempt (receivers refuse old ones); the id stays the event's.
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": deps.userAgent,
    "webhook-id": claimed.eventId,
    "webhook-timestamp": String(timestamp),
  };
  const signature = signatureHeader(liveSecrets(deps, endpoint, now), claimed.eventId, timestamp, claimed.body);
  const result = await deps.send({ url: endpoint.url, headers: { ...headers, "webhook-signature": signature }, body: claimed.body });
  const ok = result.statusCode >= 200 && result.statusCode < 300;
  await recordOutcome(deps, claimed, afterAttempt(deps, claimed, headers, attemptRecord(now, result), ok ? "ok" : "failed"));
  await recordStreak(deps, endpoint, ok, now);
};
