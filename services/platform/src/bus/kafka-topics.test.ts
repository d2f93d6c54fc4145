import { Kafka, logLevel } from "kafkajs";
import { describeWithServer } from "../testing/containers";
import { createKafkaTopics } from "./kafka-topics";

// createKafkaTopics (what `earshot setup` runs) against a real broker: KAFKA_BROKERS when given, otherwise a
// throwaway container; skipped, with the reason printed, when neither exists.
describeWithServer("Kafka topic creation ahead of the services", process.env.KAFKA_BROKERS, () => {
  let brokers = (process.env.KAFKA_BROKERS ?? "").split(",").map((b) => b.trim()).filter(Boolean);
  let stopContainer: (() => Promise<unknown>) | undefined;
  const run = `test.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  beforeAll(async () => {
    if (brokers.length > 0) return;
    const { KafkaContainer } = await import("@testcontainers/kafka");
    const container = await new KafkaContainer("confluentinc/cp-kafka:7.6.1").withKraft().start();
    brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
    stopContainer = () => container.stop();
  }, 240_000);

  afterAll(async () => {
    if (stopContainer) {
      await stopContainer();
      return;
    }
    const admin = new Kafka({ clientId: `${run}.cleanup`, brokers, logLevel: logLevel.NOTHING }).admin();
    try {
      await admin.connect();
      const ours = (await admin.listTopics()).filter((t) => t.startsWith(`${run}.`));
      if (ours.length > 0) await admin.deleteTopics({ topics: ours });
    } finally {
      await admin.disconnect();
    }
  }, 60_000);

  it("creates the missing topics with the partitions asked for, and keeps existing ones as they are on a second run", async () => {
    const topics = [`${run}.a.v1`, `${run}.a.v1.dlq`];
    const first = await createKafkaTopics({ brokers, clientId: `${run}.setup`, topics, partitions: 4, replicationFactor: 1 });
    expect(first).toEqual({ created: [...topics].sort(), existing: [] });
    const second = await createKafkaTopics({ brokers, clientId: `${run}.setup`, topics, partitions: 8, replicationFactor: 1 });
    expect(second.created).toEqual([]);
    expect(second.existing.sort((a, b) => a.topic.localeCompare(b.topic))).toEqual(topics.sort().map((topic) => ({ topic, partitions: 4 })));
  }, 60_000);

  it("refuses a replication factor above the brokers' count with the broker's error", async () => {
    await expect(createKafkaTopics({ brokers, clientId: `${run}.setup`, topics: [`${run}.b.v1`], partitions: 1, replicationFactor: 99 })).rejects.toThrow();
  }, 60_000);
});

describe("createKafkaTopics arguments", () => {
  it.each([
    [{ partitions: 0, replicationFactor: 1 }, "partitions"],
    [{ partitions: 1, replicationFactor: 0 }, "replicationFactor"],
  ])("refuses %j before connecting, naming %s", async (counts, name) => {
    await expect(createKafkaTopics({ brokers: ["127.0.0.1:1"], clientId: "t", topics: ["x"], ...counts })).rejects.toThrow(name);
  });
});
