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

/** A handler that throws gets the message again (after a backoff); later messages of its partition wait. */
export type MessageHandler = (message: DeliveredMessage) => Promise<void>;

export interface SubscribeOptions {
  /** Consumers sharing a group id split the partitions; each group sees every message. */
  groupId: string;
  topics: string[];
  /** Start from the oldest retained message when the group has no committed position. Default true. */
  fromBeginning?: boolean;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface EventBus {
  readonly kind: string;
  /** Resolves once the messages are durably accepted (Kafka: acks=all; in-process: handled by every subscribed group). */
  publish(messages: BusMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions, handler: MessageHandler): Promise<Subscription>;
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
