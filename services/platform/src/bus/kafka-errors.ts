import { KafkaJSError, type KafkaJSErrorMetadata } from "kafkajs";

/**
 * A failure thrown out of eachMessage as kafkajs must see it. kafkajs treats TypeError, RangeError,
 * ReferenceError and SyntaxError as unrecoverable: it skips its retries and crashes the consumer *without* a
 * restart, so one such error while writing a dead letter would silently end the subscription. Wrapped in a
 * retriable KafkaJSError, it is retried like any other (kafkajs also skips its own "Error when calling
 * eachMessage" log line for KafkaJSErrors; we log the failure ourselves). A KafkaJSError goes back
 * unchanged: kafkajs decides by its class and `type` (a REBALANCE_IN_PROGRESS from heartbeat() makes
 * the consumer rejoin the group), which a wrapper would hide.
 */
export const toKafkaJsError = (err: unknown): KafkaJSError => {
  if (err instanceof KafkaJSError) return err;
  const cause = err instanceof Error ? err : new Error(String(err));
  // kafkajs passes `cause` on at run time; its type declarations just do not list it.
  return new KafkaJSError(cause, { retriable: true, cause } as KafkaJSErrorMetadata);
};
