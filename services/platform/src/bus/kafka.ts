import { type Admin, type Consumer, Kafka, type KafkaMessage, logLevel, type LogEntry, type Producer } from "kafkajs";
import type { Logger } from "../logger";
import type { BusMessage, DeliveredMessage, EventBus, MessageHandler, SubscribeOptions, Subscription } from "./port";

// The production bus. One idempotent producer (acks from all in-sync replicas), one consumer per
// subscription. A handler that throws leaves its offset uncommitted: kafkajs seeks back and redelivers,
// and when its retries run out the consumer restarts rather than stopping, so delivery goes on.

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger?: Logger;
  /** Partitions of topics this bus creates; production clusters disable auto-creation. */
  partitions?: number;
  replicationFactor?: number;
  /** An existing client (tests). */
  kafka?: Kafka;
}

const LEVELS: Record<number, "error" | "warn" | "info" | "debug"> = {
  [logLevel.ERROR]: "error",
  [logLevel.WARN]: "warn",
  [logLevel.INFO]: "info",
  [logLevel.DEBUG]: "debug",
};

const toDelivered = (topic: string, partition: number, m: KafkaMessage): DeliveredMessage => {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    if (v === undefined) continue;
    headers[k] = Array.isArray(v) ? v.map((x) => x.toString()).join(",") : v.toString();
  }
  return { topic, key: m.key?.toString("utf8") ?? "", value: m.value?.toString("utf8") ?? "", headers, partition, offset: m.offset };
};

export const createKafkaBus = (options: KafkaBusOptions): EventBus => {
  const log = options.logger;
  const kafka =
    options.kafka ??
    new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: log ? logLevel.WARN : logLevel.NOTHING,
      logCreator: () => (entry: LogEntry) => {
        const level = LEVELS[entry.level] ?? "info";
        log?.[level]({ kafka: entry.namespace, ...entry.log }, entry.log.message);
      },
    });
  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const admin: Admin = kafka.admin();
  const consumers = new Set<Consumer>();
  const topicsReady = new Map<string, Promise<void>>();
  let producerReady: Promise<void> | undefined;
  let adminReady: Promise<void> | undefined;
  let closed = false;

  const ensureTopics = async (topics: string[]): Promise<void> => {
    const missing = topics.filter((t) => !topicsReady.has(t));
    if (missing.length > 0) {
      const created = (async () => {
        adminReady ??= admin.connect();
        await adminReady;
        // createTopics answers false (not an error) for topics that already exist.
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((topic) => ({
            topic,
            numPartitions: options.partitions ?? 6,
            replicationFactor: options.replicationFactor ?? 1,
          })),
        });
      })();
      for (const t of missing) topicsReady.set(t, created);
      created.catch(() => missing.forEach((t) => topicsReady.delete(t)));
    }
    await Promise.all(topics.map((t) => topicsReady.get(t)));
  };

  return {
    kind: "kafka",
    publish: async (messages: BusMessage[]) => {
      if (closed) throw new Error("The bus is closed.");
      if (messages.length === 0) return;
      const byTopic = new Map<string, BusMessage[]>();
      for (const m of messages) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), m]);
      await ensureTopics([...byTopic.keys()]);
      producerReady ??= producer.connect();
      await producerReady;
      await producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, ms]) => ({
          topic,
          messages: ms.map((m) => ({ key: m.key, value: m.value, headers: m.headers ?? {} })),
        })),
      });
    },
    subscribe: async (sub: SubscribeOptions, handler: MessageHandler): Promise<Subscription> => {
      if (closed) throw new Error("The bus is closed.");
      await ensureTopics(sub.topics);
      const consumer = kafka.consumer({
        groupId: sub.groupId,
        retry: { retries: 8, initialRetryTime: 300, maxRetryTime: 30_000, restartOnFailure: async () => !closed },
      });
      consumers.add(consumer);
      await consumer.connect();
      await consumer.subscribe({ topics: sub.topics, fromBeginning: sub.fromBeginning ?? true });
      await consumer.run({
        autoCommit: true,
        eachMessage: async ({ topic, partition, message }) => {
          try {
            await handler(toDelivered(topic, partition, message));
          } catch (err) {
            log?.warn({ err, topic, partition, offset: message.offset, group: sub.groupId }, "message handling failed; redelivering");
            throw err;
          }
        },
      });
      return {
        stop: async () => {
          consumers.delete(consumer);
          await consumer.disconnect();
        },
      };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all([...consumers].map((c) => c.disconnect()));
      consumers.clear();
      if (producerReady) await producer.disconnect();
      if (adminReady) await admin.disconnect();
    },
  };
};
