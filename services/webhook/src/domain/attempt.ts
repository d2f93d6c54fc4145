import { endpointFailingEvent } from "../events";
import type { DeliveryDoc, EndpointCopyDoc } from "../store";
import { nextUtcDay, spendBudget } from "./budget";
import type { DeliveryDeps, SendResult } from "./deps";
import { recordOutcome } from "./outcomes";
import { signatureHeader } from "./signing";

// One attempt of a claimed delivery: check the endpoint and the workspace, spend the budget (or hold),
// sign with every live secret, send, and record the outcome with the next step of the schedule. The
// outcome commits at the version the claim produced: if the delivery changed meanwhile (a redelivery),
// the outcome is dropped rather than overwrite it.

/** An endpoint failing this long is deactivated and its owner emailed. */
export const FAILING_LIMIT_MS = 5 * 24 * 3600 * 1000;

/** Attempts kept per delivery: enough to read a whole schedule and a few redeliveries. */
const MAX_ATTEMPTS_KEPT = 50;

/** How long a workspace's deliveries wait while its owner's account is deactivated (reactivation wakes them sooner). */
const DEACTIVATED_RECHECK_MS = 3600 * 1000;

const commitDelivery = (deps: DeliveryDeps, claimed: DeliveryDoc, next: DeliveryDoc): Promise<void> => recordOutcome(deps, claimed, next);

const liveSecrets = (deps: DeliveryDeps, endpoint: EndpointCopyDoc, now: Date): string[] =>
  endpoint.secrets.filter((s) => !s.expiresAt || s.expiresAt > now).map((s) => deps.sealer.open(s.sealed));

/**
 * Failure streak bookkeeping. Past the limit the endpoint stops: the first attempt to see it turns the copy
 * off (a conditional update, so concurrent attempts agree on one winner), which then tells the webhook
 * service and the owner. True when this attempt stopped it.
 */
const streakAfter = async (deps: DeliveryDeps, endpoint: EndpointCopyDoc, ok: boolean, now: Date): Promise<Date | undefined> => {
  if (ok) {
    if (endpoint.failingSince) await deps.collections.endpoints.updateOne({ _id: endpoint._id }, { $unset: { failingSince: true } });
    return undefined;
  }
  const since = endpoint.failingSince ?? now;
  if (!endpoint.failingSince) await deps.collections.endpoints.updateOne({ _id: endpoint._id, failingSince: { $exists: false } }, { $set: { failingSince: now } });
  if (now.getTime() - since.getTime() < FAILING_LIMIT_MS) return undefined;
  const stopped = await deps.collections.endpoints.updateOne({ _id: endpoint._id, active: true }, { $set: { active: false } });
  if (stopped.modifiedCount === 0) return undefined;
  await deps.outbox.commit([], [endpointFailingEvent(endpoint, since)]);
  return since;
};

const emailOwner = async (deps: DeliveryDeps, endpoint: EndpointCopyDoc, since: Date): Promise<void> => {
  const owner = (await deps.collections.workspaces.findById(endpoint.workspaceId))?.ownerEmail;
  if (!owner) {
    deps.logger.warn({ endpointId: endpoint._id }, "webhook endpoint deactivated after 5 days of failures; the workspace owner's address is unknown");
    return;
  }
  await deps.mailer.send({
    to: owner,
    subject: "Earshot stopped sending to a failing webhook endpoint",
    text:
      `Every delivery to the webhook endpoint ${endpoint._id} (${endpoint.url}) has failed since ${since.toISOString()}, ` +
      "so Earshot has deactivated it and stopped sending to it.\n\n" +
      "Fix the receiver, then turn the endpoint back on (update_webhook with active: true). " +
      "Its delivery log (list_webhook_deliveries) shows each attempt's status and answer, and failed deliveries can be redelivered.\n",
  });
};

const outcome = (result: SendResult): "ok" | "failed" => (result.statusCode >= 200 && result.statusCode < 300 ? "ok" : "failed");

export const attemptDelivery = async (deps: DeliveryDeps, claimed: DeliveryDoc): Promise<void> => {
  const now = deps.clock.now();
  const endpoint = await deps.collections.endpoints.findById(claimed.endpointId);
  if (!endpoint) {
    await deps.collections.deliveries.deleteOne({ _id: claimed._id });
    return;
  }
  if (!endpoint.active) {
    await commitDelivery(deps, claimed, { ...claimed, status: "failed", nextAttemptAt: undefined });
    return;
  }
  if ((await deps.collections.workspaces.findById(claimed.workspaceId))?.deactivated) {
    await deps.collections.deliveries.updateOne({ _id: claimed._id, _v: claimed._v }, { $set: { nextAttemptAt: new Date(now.getTime() + DEACTIVATED_RECHECK_MS) } });
    return;
  }
  let charged = claimed;
  if (!claimed.charged) {
    const budget = await spendBudget(deps, claimed.workspaceId, endpoint.dailyBudget);
    if (!budget.spent) {
      await commitDelivery(deps, claimed, { ...claimed, status: "held", nextAttemptAt: nextUtcDay(now) });
      return;
    }
    charged = { ...claimed, charged: true, budgetDay: budget.day };
  }
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
  const ok = outcome(result) === "ok";
  const step = claimed.step + 1;
  const retryIn = deps.schedule[step];
  const next: DeliveryDoc = {
    ...charged,
    headers,
    attempts: [...charged.attempts, { at: now, ...result }].slice(-MAX_ATTEMPTS_KEPT),
    step,
    ...(ok
      ? { status: "succeeded", nextAttemptAt: undefined }
      : retryIn === undefined
        ? { status: "failed", nextAttemptAt: undefined }
        : { status: "retrying", nextAttemptAt: new Date(deps.clock.now().getTime() + retryIn * 1000) }),
  };
  await commitDelivery(deps, claimed, next);
  const stoppedSince = await streakAfter(deps, endpoint, ok, now);
  if (stoppedSince) await emailOwner(deps, endpoint, stoppedSince);
};
