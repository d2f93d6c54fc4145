import type { Logger } from "../logger";
import type { WritableBusMetrics } from "./metrics";
import type { BatchHandler, BusMessage, DeliveredMessage, MessageHandler, RedeliveryPolicy } from "./port";
import { isTransient } from "./transient";

// The one redelivery policy of every bus adapter: a failing handler gets the message again after an
// exponential backoff, a bounded number of times; then the message is written to `<topic>.dlq` with why it
// failed, counted and logged, and the partition moves on. Unbounded retries would let one poison message
// stop every later message of its partition (a whole project's events) for good. Transient failures
// (`transient.ts`: an outage, not the message) do not count: they are retried until the outage passes,
// since dead-lettering would turn a short outage into lost events.

export const DEFAULT_REDELIVERY: Readonly<RedeliveryPolicy> = Object.freeze({
  maxAttempts: 5,
  initialBackoffMs: 100,
  maxBackoffMs: 3_000,
});

/** The policy of a subscription: its own fields over the bus's, over the defaults. Refuses nonsense at subscribe time. */
export const resolveRedelivery = (...layers: Array<Partial<RedeliveryPolicy> | undefined>): RedeliveryPolicy => {
  const policy = { ...DEFAULT_REDELIVERY };
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer ?? {})) if (v !== undefined) policy[k as keyof RedeliveryPolicy] = v;
  }
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new Error(`redelivery.maxAttempts must be an integer >= 1, got ${policy.maxAttempts}`);
  }
  for (const k of ["initialBackoffMs", "maxBackoffMs"] as const) {
    if (!Number.isFinite(policy[k]) || policy[k] < 0) throw new Error(`redelivery.${k} must be a number >= 0, got ${policy[k]}`);
  }
  return policy;
};

/** The wait after failed attempt `attempt` (1-based): initial × 2^(attempt-1), capped. */
export const backoffDelay = (policy: RedeliveryPolicy, attempt: number): number =>
  Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (attempt - 1));

export const deadLetterTopic = (topic: string): string => `${topic}.dlq`;

/** Headers a dead letter carries beside the original message's own. */
export const DEAD_LETTER_HEADERS = {
  topic: "earshot-dlq-topic",
  partition: "earshot-dlq-partition",
  offset: "earshot-dlq-offset",
  group: "earshot-dlq-group",
  attempts: "earshot-dlq-attempts",
  error: "earshot-dlq-error",
} as const;

/** Error messages can be anything a handler threw; a header stays small. */
const MAX_ERROR_LENGTH = 1_000;

export const errorMessage = (err: unknown): string => {
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
};

/**
 * The dead letter of a message: the original envelope untouched (same key, value and headers, so it can be
 * published back to its topic as it is) plus where it came from, which group gave up, after how many
 * attempts and the last error.
 */
export const toDeadLetter = (message: DeliveredMessage, groupId: string, attempts: number, lastError: unknown): BusMessage => ({
  topic: deadLetterTopic(message.topic),
  key: message.key,
  value: message.value,
  headers: {
    ...(message.headers ?? {}),
    [DEAD_LETTER_HEADERS.topic]: message.topic,
    [DEAD_LETTER_HEADERS.partition]: String(message.partition),
    [DEAD_LETTER_HEADERS.offset]: message.offset,
    [DEAD_LETTER_HEADERS.group]: groupId,
    [DEAD_LETTER_HEADERS.attempts]: String(attempts),
    [DEAD_LETTER_HEADERS.error]: errorMessage(lastError),
  },
});

export interface DeadLetter {
  /** The message as it was first published. */
  original: BusMessage;
  partition: number;
  offset: string;
  group: string;
  attempts: number;
  error: string;
}

/** Reads a message of a `.dlq` topic back; null when it is not a dead letter this bus wrote. */
export const readDeadLetter = (message: BusMessage): DeadLetter | null => {
  const h = message.headers ?? {};
  const topic = h[DEAD_LETTER_HEADERS.topic];
  const group = h[DEAD_LETTER_HEADERS.group];
  if (topic === undefined || group === undefined) return null;
  const headers = Object.fromEntries(Object.entries(h).filter(([name]) => !name.startsWith("earshot-dlq-")));
  return {
    original: { topic, key: message.key, value: message.value, headers },
    partition: Number(h[DEAD_LETTER_HEADERS.partition]),
    offset: h[DEAD_LETTER_HEADERS.offset] ?? "",
    group,
    attempts: Number(h[DEAD_LETTER_HEADERS.attempts]),
    error: h[DEAD_LETTER_HEADERS.error] ?? "",
  };
};

/** Waits `ms`, or less when the signal aborts (a stopping subscription must not sit out a backoff). */
export const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

/** How an adapter waits between attempts; tests pass one that records the delays instead of sleeping. */
export type RedeliveryWait = (ms: number, signal: AbortSignal) => Promise<void>;

export interface RedeliveryRun {
  message: DeliveredMessage;
  groupId: string;
  handler: MessageHandler;
  policy: RedeliveryPolicy;
  wait: RedeliveryWait;
  /** Aborted when the subscription stops. */
  signal: AbortSignal;
  /** Writes the dead letter; a failure propagates, so the adapter keeps the message instead of losing it. */
  deadLetter: (message: BusMessage) => Promise<void>;
  metrics: WritableBusMetrics;
  logger?: Logger;
  /** Runs after each failed attempt, before the wait (Kafka heartbeats here). */
  afterFailure?: () => Promise<void>;
}

/**
 * `handled`: the handler succeeded. `dead-lettered`: every attempt failed and the dead letter is written;
 * either way the adapter moves past the message. `stopped`: the subscription stopped first; the message is
 * neither handled nor dead-lettered and must stay where it is for the next consumer of the group.
 */
export type RedeliveryOutcome = "handled" | "dead-lettered" | "stopped";

export const deliverWithRedelivery = async (run: RedeliveryRun): Promise<RedeliveryOutcome> => {
  const { message, groupId, policy, logger } = run;
  const where = { group: groupId, topic: message.topic, partition: message.partition, offset: message.offset };
  let lastError: unknown;
  // Only failures of the message's own count toward maxAttempts; transient ones (an outage) are retried
  // for as long as they last, at the capped backoff.
  let counted = 0;
  for (let attempt = 1; ; attempt++) {
    if (run.signal.aborted) return "stopped";
    try {
      await run.handler(message);
      return "handled";
    } catch (err) {
      lastError = err;
      const transient = isTransient(err);
      if (!transient) counted += 1;
      if (counted >= policy.maxAttempts) break;
      const delayMs = backoffDelay(policy, attempt);
      logger?.warn({ err, ...where, attempt, transient, maxAttempts: policy.maxAttempts, delayMs }, "message handling failed; redelivering");
      await run.afterFailure?.();
      await run.wait(delayMs, run.signal);
    }
  }
  if (run.signal.aborted) return "stopped";
  const letter = toDeadLetter(message, groupId, counted, lastError);
  await run.deadLetter(letter);
  run.metrics.deadLettered.inc({ topic: message.topic, group: groupId });
  logger?.error(
    { err: lastError, ...where, attempts: counted, deadLetterTopic: letter.topic },
    "message handling failed on every attempt; moved to the dead-letter topic",
  );
  return "dead-lettered";
};

/** Bounds of `maxBatch`: a batch is held in memory and handled in one go. */
export const MAX_BATCH = 10_000;

export const checkMaxBatch = (maxBatch: number): number => {
  if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > MAX_BATCH) throw new Error(`maxBatch must be an integer from 1 to ${MAX_BATCH}, got ${maxBatch}`);
  return maxBatch;
};

export interface BatchRedeliveryRun extends Omit<RedeliveryRun, "message" | "handler"> {
  /** Consecutive messages of one partition, oldest first. */
  messages: DeliveredMessage[];
  handler: BatchHandler;
  /** Called, in order, for each message the adapter may move past (handled or dead-lettered). */
  settled: (message: DeliveredMessage) => void;
}

/**
 * Delivers a batch: the whole batch again while its failures are transient (an outage, at the capped
 * backoff, as for one message), and on a failure of its own each message alone through
 * `deliverWithRedelivery`, so the policy, the dead letters and the metrics are those of single messages.
 * `stopped`: the subscription stopped; the messages not reported to `settled` stay for the group.
 */
export const deliverBatchWithRedelivery = async (run: BatchRedeliveryRun): Promise<"handled" | "stopped"> => {
  const { messages, handler, policy, logger } = run;
  const first = messages[0];
  if (!first) return "handled";
  if (messages.length > 1) {
    const where = { group: run.groupId, topic: first.topic, partition: first.partition, offset: first.offset, count: messages.length };
    for (let attempt = 1; ; attempt++) {
      if (run.signal.aborted) return "stopped";
      try {
        await handler(messages);
        for (const m of messages) run.settled(m);
        return "handled";
      } catch (err) {
        if (!isTransient(err)) {
          logger?.warn({ err, ...where }, "batch handling failed; delivering its messages one by one");
          break;
        }
        const delayMs = backoffDelay(policy, attempt);
        logger?.warn({ err, ...where, attempt, transient: true, delayMs }, "batch handling failed; redelivering");
        await run.afterFailure?.();
        await run.wait(delayMs, run.signal);
      }
    }
  }
  for (const message of messages) {
    const outcome = await deliverWithRedelivery({ ...run, message, handler: (m) => handler([m]) });
    if (outcome === "stopped") return "stopped";
    run.settled(message);
  }
  return "handled";
};
