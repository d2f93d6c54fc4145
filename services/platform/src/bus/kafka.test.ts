import { Kafka, logLevel } from "kafkajs";
import { describeWithServer } from "../testing/containers";
import { waitFor } from "../testing/tmp";
import { describeBusContract } from "./bus-contract-test-support";
import { createKafkaBus } from "./kafka";
import type { DeliveredMessage, EventBus } from "./port";

// Runs the bus contract, and what only Kafka can show, against a real broker: KAFKA_BROKERS when given
// (comma-separated), otherwise a throwaway container. Skipped, with the reason printed, when neither exists.
describeWithServer("Kafka event bus adapter", process.env.KAFKA_BROKERS, () => {
  let brokers = (process.env.KAFKA_BROKERS ?? "")
    .split(",")
    .map((b) => b.trim())
    .filter(Boolean);
  let stopContainer: (() => Promise<unknown>) | undefined;
  // Every topic and group of this run starts with it, so runs against a shared broker never see each
  // other's messages (and afterAll can find this run's topics again).
  const run = `test.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  let n = 0;
  const topicName = (name: string) => `${run}.${name}.${++n}`;
  const groupName = (name: string) => `${run}.${name}.${++n}`;

  beforeAll(async () => {
    if (brokers.length > 0) return;
    // Loaded here so a machine without a container runtime never loads testcontainers for this file.
    const { KafkaContainer } = await import("@testcontainers/kafka");
    const container = await new KafkaContainer("confluentinc/cp-kafka:7.6.1").withKraft().start();
    // 9093 is the container's PLAINTEXT listener, advertised as the mapped host port once started.
    brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
    stopContainer = () => container.stop();
  }, 240_000);

  afterAll(async () => {
    if (stopContainer) {
      await stopContainer();
      return;
    }
    // A broker of your own keeps its topics: remove this run's, best effort (topic deletion may be
    // disabled there, which is no reason to fail the suite).
    const admin = new Kafka({ clientId: `${run}.cleanup`, brokers, logLevel: logLevel.NOTHING }).admin();
    try {
      await admin.connect();
      const ours = (await admin.listTopics()).filter((t) => t.startsWith(`${run}.`));
      if (ours.length > 0) await admin.deleteTopics({ topics: ours });
    } catch (err) {
      process.stderr.write(`[kafka.test] could not delete the topics of run ${run}: ${String(err)}\n`);
    } finally {
      await admin.disconnect();
    }
  }, 60_000);

  describeBusContract(
    "kafka",
    async () => ({
      bus: createKafkaBus({ brokers, clientId: `${run}.contract`, partitions: 3 }),
      topic: topicName,
      cleanup: async () => undefined,
    }),
    30_000,
  );

  describe("Kafka specifics", () => {
    const buses: EventBus[] = [];
    const newBus = (name: string, partitions = 3): EventBus => {
      const bus = createKafkaBus({ brokers, clientId: `${run}.${name}`, partitions });
      buses.push(bus);
      return bus;
    };
    afterEach(async () => {
      await Promise.all(buses.splice(0).map((b) => b.close()));
    }, 60_000);

    const failsTwiceThenSucceeds = async (makeError: () => Error) => {
      const bus = newBus("retry");
      const topic = topicName("retry");
      const deliveries: DeliveredMessage[] = [];
      await bus.subscribe({ groupId: groupName("retry"), topics: [topic], redelivery: { initialBackoffMs: 10 } }, async (m) => {
        deliveries.push(m);
        if (deliveries.length <= 2) throw makeError();
      });
      await bus.publish([{ topic, key: "k", value: "v" }]);
      await waitFor(() => deliveries.length >= 3, 60_000);
      // A success must not be followed by yet another delivery: a later message with the same key (one
      // partition, delivered in order) reaches the handler only after any such redelivery would have.
      await bus.publish([{ topic, key: "k", value: "next" }]);
      await waitFor(() => deliveries.some((m) => m.value === "next"), 60_000);
      expect(deliveries.map((m) => m.value)).toEqual(["v", "v", "v", "next"]);
      // The same record each time, not a copy: the offset was never committed past it.
      const [first, ...rest] = deliveries.slice(0, 3);
      for (const again of rest) expect(again).toEqual(first);
    };

    it("delivers a message a third time to a handler that failed twice", async () => {
      await failsTwiceThenSucceeds(() => new Error("transient"));
    }, 90_000);

    it("redelivers after a handler throws a TypeError, which kafkajs alone would not restart from", async () => {
      await failsTwiceThenSucceeds(() => new TypeError("Cannot read properties of undefined"));
    }, 90_000);

    it("creates the dead-letter topic of every subscribed topic when subscribing", async () => {
      const bus = newBus("dlq-topic");
      const topic = topicName("dlq-topic");
      await bus.subscribe({ groupId: groupName("dlq-topic"), topics: [topic] }, async () => undefined);
      const admin = new Kafka({ clientId: `${run}.inspect`, brokers, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      try {
        expect(await admin.listTopics()).toEqual(expect.arrayContaining([topic, `${topic}.dlq`]));
      } finally {
        await admin.disconnect();
      }
    }, 90_000);

    it("dead-letters a poison message published by another client and commits past it, so a new consumer of the group starts after it", async () => {
      const publisher = newBus("poison-publisher");
      const topic = topicName("poison");
      const groupId = groupName("poison");
      const letters: DeliveredMessage[] = [];
      await publisher.subscribe({ groupId: groupName("poison-dlq"), topics: [`${topic}.dlq`] }, async (m) => void letters.push(m));
      const first = newBus("poison-first");
      const sub = await first.subscribe({ groupId, topics: [topic], redelivery: { maxAttempts: 2, initialBackoffMs: 10 } }, async () => {
        throw new TypeError("Cannot read properties of undefined");
      });
      await publisher.publish([{ topic, key: "k", value: "poison" }]);
      await waitFor(() => letters.length === 1, 60_000);
      expect(first.metrics.deadLettered.value({ topic, group: groupId })).toBe(1);
      await sub.stop();

      await publisher.publish([{ topic, key: "k", value: "next" }]);
      const got: string[] = [];
      await newBus("poison-second").subscribe({ groupId, topics: [topic] }, async (m) => void got.push(m.value));
      await waitFor(() => got.length === 1, 60_000);
      expect(got).toEqual(["next"]);
    }, 90_000);

    it("gives consumers of two groups, on separate clients, each their own copy", async () => {
      const publisher = newBus("publisher");
      const topic = topicName("fanout");
      const a: DeliveredMessage[] = [];
      const b: DeliveredMessage[] = [];
      await newBus("reader-a").subscribe({ groupId: groupName("a"), topics: [topic] }, async (m) => void a.push(m));
      await newBus("reader-b").subscribe({ groupId: groupName("b"), topics: [topic] }, async (m) => void b.push(m));
      await publisher.publish([{ topic, key: "prj_1", value: "hello", headers: { "ce-id": "1" } }]);
      await waitFor(() => a.length === 1 && b.length === 1, 60_000);
      // One copy each: a second message with the same key reaches each group only after any duplicate would have.
      await publisher.publish([{ topic, key: "prj_1", value: "bye", headers: { "ce-id": "2" } }]);
      await waitFor(() => a.some((m) => m.value === "bye") && b.some((m) => m.value === "bye"), 60_000);
      expect(a.map((m) => m.value)).toEqual(["hello", "bye"]);
      expect(b.map((m) => m.value)).toEqual(["hello", "bye"]);
      expect(a[0]).toEqual(b[0]);
      expect(a[0]).toMatchObject({ topic, key: "prj_1", value: "hello", headers: { "ce-id": "1" }, offset: "0" });
    }, 90_000);

    it("creates topics with the configured partitions and keeps each key on one partition", async () => {
      const bus = newBus("partitions", 4);
      const topic = topicName("partitions");
      const got: DeliveredMessage[] = [];
      await bus.subscribe({ groupId: groupName("partitions"), topics: [topic] }, async (m) => void got.push(m));
      await bus.publish(Array.from({ length: 40 }, (_, i) => ({ topic, key: `prj_${i % 8}`, value: String(i) })));
      await waitFor(() => got.length === 40, 60_000);

      const admin = new Kafka({ clientId: `${run}.inspect`, brokers, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      try {
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
        expect(topics[0]?.partitions).toHaveLength(4);
      } finally {
        await admin.disconnect();
      }
      const partitionsByKey = new Map<string, Set<number>>();
      for (const m of got) partitionsByKey.set(m.key, (partitionsByKey.get(m.key) ?? new Set()).add(m.partition));
      for (const partitions of partitionsByKey.values()) expect(partitions.size).toBe(1);
    }, 90_000);

    it("refuses to publish or subscribe once closed, and closes twice without error", async () => {
      const bus = newBus("closed");
      const topic = topicName("closed");
      await bus.subscribe({ groupId: groupName("closed"), topics: [topic] }, async () => undefined);
      await bus.close();
      await bus.close();
      await expect(bus.publish([{ topic, key: "k", value: "v" }])).rejects.toThrow(/closed/);
      await expect(bus.subscribe({ groupId: groupName("closed"), topics: [topic] }, async () => undefined)).rejects.toThrow(/closed/);
    }, 90_000);
  });
});
