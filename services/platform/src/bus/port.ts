// The event bus port: publish keyed messages to topics; consumer groups receive every message at least
// once, in order per key. Adapters: Kafka (production) and in-process (embedded default, tests).

export interface BusMessage {
  topic: string;
  /** Messages with one key keep their order (Kafka: same partition). Events use the project id. */
  key: string;
  value: string;
  headers?: Record<string, string>;
}

export interface DeliveredMessage extends BusMessage {
  partition: number;
  offset: string;
}

/**
 * A handler that throws gets the message again after a backoff, while later messages of its partition wait;
 * after the last attempt of the redelivery policy the message goes to the dead-letter topic and the
 * partition moves on.
 */
export type MessageHandler = (message: DeliveredMessage) => Promise<void>;

/**
 * Consecutive messages of one partition, in order, handled together: all of them count as handled when it
 * resolves. One that throws gets the same messages again while the failure is transient (an outage); any
 * other failure splits the batch, and each of its messages is then delivered alone under the redelivery
 * policy, so one poison message is dead-lettered without taking its neighbours along.
 */
export type BatchHandler = (messages: DeliveredMessage[]) => Promise<void>;

/** How often, and how patiently, a failing message is handed to a group again before it is dead-lettered. */
export interface RedeliveryPolicy {
  /** Deliveries of one message to one group, the first included. Default 5. */
  maxAttempts: number;
  /** Wait before the second delivery; doubles for each further one. Default 100 ms. */
  initialBackoffMs: number;
  /** Ceiling of the wait between deliveries. Default 3 s. */
  maxBackoffMs: number;
}

export interface SubscribeOptions {
  /**
   * Consumers sharing a group id split the partitions; each group sees every message. A group that has
   * never committed a position starts from the oldest retained message, so it never misses one published
   * before (or just after) it subscribed.
   */
  groupId: string;
  topics: string[];
  /** Overrides the bus's redelivery policy for this subscription, field by field. */
  redelivery?: Partial<RedeliveryPolicy>;
  /**
   * Where a group that has never committed a position starts: `earliest` (the default, right for a
   * real group, which must not miss anything) or `latest`, after what is retained now, for a group
   * made up per process that only wants what happens from now on (replaying the whole retained topic
   * at every start would be wasted work). On Kafka, `latest` is resolved at the first fetch, so a message
   * published just as the subscription starts may be missed.
   */
  startFrom?: "earliest" | "latest";
}

export interface BatchSubscribeOptions extends SubscribeOptions {
  /**
   * Most messages per call (1..10,000). The bus hands what has arrived, up to this many; it never waits for
   * a batch to fill, so a quiet topic gets batches of one and a burst gets full ones.
   */
  maxBatch: number;
}

export interface Subscription {
  stop(): Promise<void>;
}

/** A monotonically increasing count per label set, readable by whatever exposes metrics. */
export interface CounterReading {
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface ReadableCounter {
  /** Prometheus-style name, e.g. `earshot_bus_dead_lettered_total`. */
  readonly name: string;
  readonly help: string;
  /** The count for exactly these labels (0 when never incremented). */
  value(labels: Record<string, string>): number;
  readings(): CounterReading[];
}

export interface BusMetrics {
  /** Messages moved to a dead-letter topic, labelled by source `topic` and consumer `group`. */
  readonly deadLettered: ReadableCounter;
}

export interface EventBus {
  readonly kind: string;
  readonly metrics: BusMetrics;
  /** Resolves once the messages are durably accepted (Kafka: acks=all; in-process: handled by every subscribed group). */
  publish(messages: BusMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions, handler: MessageHandler): Promise<Subscription>;
  /**
   * Like `subscribe`, with the messages of a partition handed over in batches: for consumers whose work
   * is cheaper done together (one commit for many messages) than one message at a time.
   */
  subscribeBatches(options: BatchSubscribeOptions, handler: BatchHandler): Promise<Subscription>;
  close(): Promise<void>;
}

/** Stable partition choice for a key (FNV-1a) for the in-process bus; Kafka partitions with its own (Java-compatible) partitioner. Either way one key stays on one partition. */
export const partitionFor = (key: string, partitions: number): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % partitions;
};
