import { describeWithServer } from "../testing/containers";
import { waitFor } from "../testing/tmp";
import { describeBusContract } from "./contract";
import { createKafkaBus } from "./kafka";

// Runs the bus contract against a real Kafka broker: KAFKA_BROKERS when given, otherwise a throwaway
// container. Skipped, with the reason printed, when neither exists.
describeWithServer("Kafka event bus adapter", process.env.KAFKA_BROKERS, () => {
  let brokers = (process.env.KAFKA_BROKERS ?? "").split(",").filter(Boolean);
  let stopContainer: (() => Promise<unknown>) | undefined;
  const run = Math.random().toString(36).slice(2, 8);
  let n = 0;

  beforeAll(async () => {
    if (brokers.length > 0) return;
    const { KafkaContainer } = await import("@testcontainers/kafka");
    const container = await new KafkaContainer("confluentinc/cp-kafka:7.6.1").withKraft().start();
    brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
    stopContainer = () => container.stop();
  }, 240_000);
  afterAll(async () => {
    await stopContainer?.();
  }, 60_000);

  describeBusContract(
    "kafka",
    async () => ({
      bus: createKafkaBus({ brokers, clientId: `contract-${run}`, partitions: 3 }),
      topic: (name) => `test.${run}.${name}.${++n}`,
      cleanup: async () => undefined,
    }),
    30_000,
  );

  it("keeps redelivering to a handler that fails, until it succeeds", async () => {
    const bus = createKafkaBus({ brokers, clientId: `retry-${run}` });
    const topic = `test.${run}.failing.${++n}`;
    let attempts = 0;
    await bus.subscribe({ groupId: `g-${run}-failing`, topics: [topic] }, async () => {
      attempts += 1;
      if (attempts < 3) throw new Error("transient");
    });
    await bus.publish([{ topic, key: "k", value: "v" }]);
    await waitFor(() => attempts >= 3, 60_000);
    await bus.close();
  }, 90_000);
});
