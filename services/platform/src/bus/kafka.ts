import {
  type Consumer,
  type ConsumerRunConfig,
  type EachBatchPayload,
  type EachMessagePayload,
  type IHeaders,
  Kafka,
  KafkaJSError,
  type KafkaMessage,
  type LogEntry,
  logLevel,
  Partitioners,
} from "kafkajs";
import type { Logger } from "../logger";
import type { KafkaConnection } from "./kafka-connection";
import { toKafkaJsError } from "./kafka-errors";
import { createBusMetrics } from "./metrics";
import type {
  BatchHandler,
  BatchSubscribeOptions,
  BusMessage,
  DeliveredMessage,
  EventBus,
  MessageHandler,
  RedeliveryPolicy,
  SubscribeOptions,
  Subscription,
} from "./port";
import {
  abortableSleep,
  checkMaxBatch,
  deadLetterTopic,
  deliverBatchWithRedelivery,
  deliverWithRedelivery,
  type RedeliveryOutcome,
  type RedeliveryWait,
  resolveRedelivery,
} from "./redelivery";

// The production bus on Kafka (kafkajs). One idempotent producer for the whole bus, one consumer per
// subscription, topics created on first use because production clusters disable auto-creation.
//
// Delivery is at least once, with the shared redelivery policy: a handler that throws is called again
// with the same message, inside the same eachMessage call, after a backoff (heartbeating meanwhile), so the
// message comes back before any later message of its partition. After the last attempt the message is
// written to `<topic>.dlq` and its offset committed, so a poison message cannot block its partition. Should
// the dead letter itself fail to be written, the offset stays uncommitted and kafkajs fetches the partition
// again from that message: nothing is dropped without a trace. The delicate part is making sure that never
// turns into a consumer that silently stops; see `subscribe` below.

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** kafkajs's own log lines (warn and above) go here; without a logger they are dropped. */
  logger?: Logger;
  /** Partitions of the topics this bus creates. The unit of parallelism per consumer group. */
  partitions?: number;
  /** Replication factor of the topics this bus creates; 3 on a real cluster, 1 on a single broker. */
  replicationFactor?: number;
  /** TLS and SASL to the brokers (see kafka-connection.ts); plaintext without. */
  connection?: KafkaConnection;
  /** A ready kafkajs client (tests); brokers, clientId, connection and the log routing are then its own. */
  kafka?: Kafka;
  /** The redelivery policy of every subscription that does not set its own. */
  redelivery?: Partial<RedeliveryPolicy>;
  /** How to wait between attempts; tests pass one that does not sleep. */
  wait?: RedeliveryWait;
}

// The consumer's retry schedule, spelled out in full: kafkajs swaps in much shorter defaults when
// NODE_ENV=test, and the production behaviour should not depend on that.
// Handler failures never reach kafkajs (the redelivery policy deals with them); what does is a dead letter
// that could not be written, a failed heartbeat, or a broker problem.
const CONSUMER_RETRY = {
  // Never give up on a partition. When kafkajs's fetch loop runs out of retries the consumer crashes, and
  // then only restarts if the error looks retriable and restartOnFailure agrees. Retrying without end keeps
  // the consumer running, with no group rebalance per exhausted round. (restartOnFailure below still covers
  // crashes that bypass retries.)
  retries: Number.MAX_SAFE_INTEGER,
  initialRetryTime: 300,
  multiplier: 2,
  factor: 0.2,
  // Bounds how long stop() waits for a pending retry to notice the stop.
  maxRetryTime: 10_000,
};

const LOG_LEVELS: Partial<Record<logLevel, "error" | "warn" | "info" | "debug">> = {
  [logLevel.ERROR]: "error",
  [logLevel.WARN]: "warn",
  [logLevel.INFO]: "info",
  [logLevel.DEBUG]: "debug",
};

const routeLogs = (logger: Logger) => () => {
  const log = logger.child({ component: "kafkajs" });
  return ({ namespace, level, log: entry }: LogEntry): void => {
    // pino stamps its own time and name; kafkajs's copies would only clash with them.
    const { message, timestamp: _timestamp, logger: _logger, ...fields } = entry;
    log[LOG_LEVELS[level] ?? "warn"]({ ...fields, namespace }, message);
  };
};

const headersOf = (headers: IHeaders | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    // Kafka allows a header name more than once (kafkajs then gives an array); like Kafka's own
    // lastHeader(), the last value wins. This bus never writes repeated names itself.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) out[name] = last.toString("utf8");
  }
  return out;
};

const toDelivered = (topic: string, partition: number, message: KafkaMessage): DeliveredMessage => ({
  topic,
  // Messages from other producers may lack a key or a value; the port has strings, so empty ones.
  key: message.key?.toString("utf8") ?? "",
  value: message.value?.toString("utf8") ?? "",
  headers: headersOf(message.headers),
  partition,
  offset: message.offset,
});

const describeError = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const createKafkaBus = (options: KafkaBusOptions): EventBus => {
  const log = options.logger;
  const metrics = createBusMetrics();
  const wait = options.wait ?? abortableSleep;
  resolveRedelivery(options.redelivery);
  if (!options.kafka && options.brokers.length === 0) throw new Error("createKafkaBus: no Kafka brokers given.");
  const kafka =
    options.kafka ??
    new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      ...options.connection,
      logLevel: log ? logLevel.WARN : logLevel.NOTHING,
      ...(log ? { logCreator: routeLogs(log) } : {}),
    });

  const producer = kafka.producer({
    // Idempotence with one request in flight: broker-side retries neither duplicate nor reorder messages,
    // which is what keeps order per key across publish calls. kafkajs forces acks=-1 with it.
    idempotent: true,
    maxInFlightRequests: 1,
    // The Java client's murmur2 partitioner (kafkajs 2's default, named so it does not warn), so a key
    // lands on the same partition whichever client wrote it.
    createPartitioner: Partitioners.DefaultPartitioner,
    // Topics are created explicitly with the configured partitions (ensureTopics); an auto-created one
    // would get the broker's default count instead.
    allowAutoTopicCreation: false,
  });
  const admin = kafka.admin();

  let producerConnected: Promise<void> | undefined;
  let adminConnected: Promise<void> | undefined;
  const topicsReady = new Map<string, Promise<void>>();
  const subscriptions = new Set<Subscription>();
  let closing: Promise<void> | undefined;

  const assertOpen = (): void => {
    if (closing) throw new Error("The bus is closed.");
  };

  // Connect once, lazily; a failed attempt is forgotten so the next call tries again instead of
  // failing forever with the first error.
  const connectProducer = (): Promise<void> => {
    assertOpen(); // a connect begun after close() would never be disconnected
    const attempt = (producerConnected ??= producer.connect());
    attempt.catch(() => {
      if (producerConnected === attempt) producerConnected = undefined;
    });
    return attempt;
  };
  const connectAdmin = (): Promise<void> => {
    assertOpen();
    const attempt = (adminConnected ??= admin.connect());
    attempt.catch(() => {
      if (adminConnected === attempt) adminConnected = undefined;
    });
    return attempt;
  };

  const createMissing = async (topics: string[]): Promise<void> => {
    await connectAdmin();
    // Look before creating: a principal allowed to describe topics but not to create them (common on
    // managed clusters, where topics are provisioned) must still work once its topics exist.
    const existing = new Set(await admin.listTopics());
    await Promise.all(
      topics
        .filter((topic) => !existing.has(topic))
        // One topic per request: when a batch contains a topic that already exists, kafkajs answers
        // false without waiting for the leaders of the ones it did create.
        .map((topic) =>
          admin.createTopics({
            // Answers false rather than failing when another process created the topic meanwhile.
            topics: [{ topic, numPartitions: options.partitions ?? 6, replicationFactor: options.replicationFactor ?? 1 }],
            // So the first produce or fetch does not run into LEADER_NOT_AVAILABLE.
            waitForLeaders: true,
          }),
        ),
    );
  };

  /** Makes sure the topics exist, asking the cluster once per topic for the life of the bus. */
  const ensureTopics = async (topics: string[]): Promise<void> => {
    const missing = [...new Set(topics)].filter((topic) => !topicsReady.has(topic));
    if (missing.length > 0) {
      const ready = createMissing(missing);
      for (const topic of missing) topicsReady.set(topic, ready);
      ready.catch(() => {
        // Forget the failure so the next publish or subscribe asks again.
        for (const topic of missing) if (topicsReady.get(topic) === ready) topicsReady.delete(topic);
      });
    }
    await Promise.all(topics.map((topic) => topicsReady.get(topic)));
  };

  const publish = async (messages: BusMessage[]): Promise<void> => {
    assertOpen();
    if (messages.length === 0) return;
    const byTopic = new Map<string, BusMessage[]>();
    for (const m of messages) {
      const list = byTopic.get(m.topic);
      if (list) list.push(m);
      else byTopic.set(m.topic, [m]);
    }
    await ensureTopics([...byTopic.keys()]);
    await connectProducer();
    // One request for the whole call. The key picks the partition, so messages with one key keep the
    // order they have in `messages`. Resolves once all in-sync replicas have them (acks=-1).
    await producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, list]) => ({
        topic,
        messages: list.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
      })),
    });
  };

  /** What the consumer of a subscription runs: eachMessage or eachBatch over the shared redelivery. */
  interface Consuming {
    consumer: Consumer;
    policy: RedeliveryPolicy;
    /** Aborted when the subscription stops: wakes a redelivery backoff, so disconnect() does not wait it out. */
    signal: AbortSignal;
    /** Only reachable if a kafkajs restart raced with stop(): refuses to hand a stopped subscription anything. */
    refuseIfStopped: () => void;
  }

  const deliveryFailed = (err: unknown, where: Record<string, unknown>): never => {
    log?.warn({ err, ...where }, "message neither handled nor dead-lettered; it will be fetched again");
    // Thrown back to kafkajs: the offset stays uncommitted (earlier messages of the batch are committed)
    // and the partition is fetched again from this message after the retry backoff.
    throw toKafkaJsError(err);
  };

  const consume = async (sub: SubscribeOptions, runConfig: (c: Consuming) => ConsumerRunConfig): Promise<Subscription> => {
    assertOpen();
    const policy = resolveRedelivery(options.redelivery, sub.redelivery);
    // The dead-letter topics too, up front: a missing one should fail the start, not the first poison message.
    await ensureTopics([...sub.topics, ...sub.topics.map(deadLetterTopic)]);

    let stopped = false;
    const stopRequested = new AbortController();
    const consumer: Consumer = kafka.consumer({
      groupId: sub.groupId,
      allowAutoTopicCreation: false,
      retry: {
        ...CONSUMER_RETRY,
        // Some crashes do not go through the retries (a connection lost while starting, no broker
        // left): kafkajs restarts the consumer for those when they are retriable and this says yes.
        restartOnFailure: async () => !stopped,
      },
    });

    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (stopped) return;
      const fields = { err: payload.error, group: sub.groupId, topics: sub.topics };
      if (payload.restart) log?.warn(fields, "Kafka consumer crashed; kafkajs restarts it");
      // Non-retriable errors (authorization, invalid group, ...) end the consumer for good; nothing here
      // can fix them, but they must not go unnoticed.
      else log?.error(fields, "Kafka consumer crashed and will not restart; this subscription receives nothing more");
    });

    const refuseIfStopped = (): void => {
      if (!stopped) return;
      // Stop that consumer again and leave the offset for whoever takes the partition over.
      void consumer.disconnect().catch(() => undefined);
      throw new KafkaJSError("The subscription is stopped.", { retriable: true });
    };

    const stopConsumer = async (): Promise<void> => {
      stopped = true;
      stopRequested.abort();
      await consumer.disconnect();
    };

    try {
      await consumer.connect();
      // A group without committed offsets starts at the earliest retained message. With "latest" instead,
      // the position is only resolved at the first fetch, after run() resolved, so a message published just
      // after subscribe() returned could be skipped.
      // `startFrom: "latest"` opts out, for groups that only want what happens from now on.
      await consumer.subscribe({ topics: sub.topics, fromBeginning: sub.startFrom !== "latest" });
      // Resolves once the consumer has joined its group (or crashed trying, which the CRASH listener
      // reports); fetching then runs in the background.
      await consumer.run(runConfig({ consumer, policy, signal: stopRequested.signal, refuseIfStopped }));
    } catch (err) {
      await stopConsumer().catch((e: unknown) => log?.warn({ err: e }, "could not disconnect a Kafka consumer that failed to start"));
      throw err;
    }

    let stopping: Promise<void> | undefined;
    const subscription: Subscription = {
      stop: () =>
        (stopping ??= (async () => {
          subscriptions.delete(subscription);
          await stopConsumer();
        })()),
    };
    subscriptions.add(subscription);
    if (closing) {
      // close() ran while this consumer was starting and could not see it.
      await subscription.stop();
      throw new Error("The bus is closed.");
    }
    return subscription;
  };

  const subscribe = (sub: SubscribeOptions, handler: MessageHandler): Promise<Subscription> =>
    consume(sub, ({ policy, signal, refuseIfStopped }) => ({
      autoCommit: true,
      eachMessage: async ({ topic, partition, message, heartbeat }: EachMessagePayload): Promise<void> => {
        refuseIfStopped();
        let outcome: RedeliveryOutcome;
        try {
          outcome = await deliverWithRedelivery({
            message: toDelivered(topic, partition, message),
            groupId: sub.groupId,
            handler,
            policy,
            wait,
            signal,
            deadLetter: (letter) => publish([letter]),
            metrics,
            ...(log ? { logger: log } : {}),
            // kafkajs heartbeats only after a handled message or an empty fetch. Without this, backoffs adding
            // up past the session timeout would get the member evicted and the group rebalanced. A rebalance
            // it reports ends this attempt: thrown to kafkajs, which rejoins; the message comes back from its
            // uncommitted offset to whoever owns the partition then.
            afterFailure: () => heartbeat(),
          });
        } catch (err) {
          return deliveryFailed(err, { group: sub.groupId, topic, partition, offset: message.offset });
        }
        if (outcome === "stopped") {
          // Neither handled nor dead-lettered: the offset must not be committed.
          throw new KafkaJSError("The subscription stopped before the message was handled.", { retriable: true });
        }
      },
    }));

  const subscribeBatches = (sub: BatchSubscribeOptions, handler: BatchHandler): Promise<Subscription> => {
    const maxBatch = checkMaxBatch(sub.maxBatch);
    return consume(sub, ({ policy, signal, refuseIfStopped }) => ({
      autoCommit: true,
      // Offsets are resolved here as messages settle, never for a whole fetch that was not handled.
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> => {
        refuseIfStopped();
        const messages = batch.messages.map((m) => toDelivered(batch.topic, batch.partition, m));
        for (let i = 0; i < messages.length; i += maxBatch) {
          // Stopping, or the partition was sought elsewhere (a rebalance): what is left is not ours to handle.
          if (!isRunning() || isStale()) return;
          const run = messages.slice(i, i + maxBatch);
          let outcome: "handled" | "stopped";
          try {
            outcome = await deliverBatchWithRedelivery({
              messages: run,
              groupId: sub.groupId,
              handler,
              policy,
              wait,
              signal,
              deadLetter: (letter) => publish([letter]),
              metrics,
              ...(log ? { logger: log } : {}),
              afterFailure: () => heartbeat(),
              settled: (m) => resolveOffset(m.offset),
            });
          } catch (err) {
            return deliveryFailed(err, { group: sub.groupId, topic: batch.topic, partition: batch.partition, offset: run[0]?.offset });
          }
          if (outcome === "stopped") throw new KafkaJSError("The subscription stopped before the batch was handled.", { retriable: true });
          await heartbeat();
          await commitOffsetsIfNecessary();
        }
      },
    }));
  };

  const close = (): Promise<void> =>
    (closing ??= (async () => {
      // Everything is released even when one part fails; the failures are reported together.
      const results = await Promise.allSettled([...subscriptions].map((s) => s.stop()));
      const disconnect = async (connected: Promise<void> | undefined, client: { disconnect(): Promise<void> }) => {
        if (!connected) return;
        // Let a connect still in flight settle first; disconnecting under it could leave it connected.
        await connected.catch(() => undefined);
        await client.disconnect();
      };
      results.push(...(await Promise.allSettled([disconnect(producerConnected, producer), disconnect(adminConnected, admin)])));
      const errors = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
      if (errors.length > 0) {
        throw new AggregateError(errors, `Closing the Kafka bus failed: ${errors.map(describeError).join("; ")}`);
      }
    })());

  return { kind: "kafka", metrics, publish, subscribe, subscribeBatches, close };
};
