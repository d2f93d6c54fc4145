import { PROJECT_TOPIC } from "@earshot/contracts/events";
import { createInProcessBus } from "@earshot/platform";
import { createHttpMetrics, exposeBusMetrics } from "./metrics";

// The bus counts dead letters in memory; the edge's metrics registry (the admin port's /metrics) shows them.

describe("bus metrics on the metrics registry", () => {
  it("shows a message moved to its dead-letter topic, by topic and group, at scrape time", async () => {
    const bus = createInProcessBus({ redelivery: { maxAttempts: 1 } });
    const metrics = createHttpMetrics();
    exposeBusMetrics(metrics.registry, bus.metrics);
    try {
      await bus.subscribe({ groupId: "poisoned", topics: [PROJECT_TOPIC] }, async () => {
        throw new Error("cannot handle this");
      });
      expect(await metrics.registry.metrics()).not.toMatch(/earshot_bus_dead_lettered_total\{/);
      // The in-process bus resolves a publish once every group has handled (or dead-lettered) the message.
      await bus.publish([{ topic: PROJECT_TOPIC, key: "prj_1", value: "{}", headers: {} }]);
      expect(await metrics.registry.metrics()).toContain(`earshot_bus_dead_lettered_total{topic="${PROJECT_TOPIC}",group="poisoned"} 1`);
    } finally {
      await bus.close();
    }
  });
});
