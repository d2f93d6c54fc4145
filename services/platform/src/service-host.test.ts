import { z } from "zod";
import { createInProcessBus } from "./bus/in-process";
import { loadConfig } from "./config";
import { createHealthChecker } from "./grpc/health";
import { serviceMainConfigSchema, type ServiceModule } from "./service-host";
import { combineSettings, declaredSettings, secret, secretMarkOf } from "./settings";
import { hostServiceForTest } from "./testing/service-under-test";

// A pure event consumer, as the notifiers will be: no gRPC service of its own, one declared topic.
const consumerOnly = (seen: string[], subscribeTo = "earshot.example.v1"): ServiceModule => ({
  name: "tally",
  settings: { EARSHOT_TALLY_TOKEN: secret(z.string().min(1).optional()), EARSHOT_TALLY_LIMIT: z.coerce.number().default(3) },
  consumes: ["earshot.example.v1"],
  open: async (deps) => {
    let subscription: { stop(): Promise<void> } | undefined;
    return {
      start: async () => {
        subscription = await deps.bus.subscribe({ groupId: "tally", topics: [subscribeTo] }, async (m) => void seen.push(m.value));
      },
      stop: async () => subscription?.stop(),
    };
  },
});

describe("hosting a service", () => {
  it("hosts a consumer-only module: its server answers only health, and it handles the events of its declared topic", async () => {
    const seen: string[] = [];
    const bus = createInProcessBus();
    const hosted = await hostServiceForTest(consumerOnly(seen), { bus });
    const health = createHealthChecker(hosted.address);
    try {
      expect(await health.check("")).toBe("SERVING");
      expect(await health.check("earshot.tally.v1.TallyService")).toBe("SERVICE_UNKNOWN");
      // The in-process bus resolves a publish once every subscribed group has handled it.
      await bus.publish([{ topic: "earshot.example.v1", key: "p1", value: "hello" }]);
      expect(seen).toEqual(["hello"]);
    } finally {
      health.close();
      await hosted.stop();
      await bus.close();
    }
  });

  it("refuses to start a module subscribing to a topic it does not declare", async () => {
    const seen: string[] = [];
    const bus = createInProcessBus();
    try {
      await expect(hostServiceForTest(consumerOnly(seen, "earshot.other.v1"), { bus })).rejects.toThrow(
        "service tally subscribes to earshot.other.v1, which its module does not declare in consumes",
      );
      await bus.publish([{ topic: "earshot.other.v1", key: "p1", value: "unheard" }]);
      expect(seen).toEqual([]);
    } finally {
      await bus.close();
    }
  });
});

describe("a service's declared settings", () => {
  it("are loaded with the shared ones by a service's own main, defaults and checks included", () => {
    const config = loadConfig(serviceMainConfigSchema(consumerOnly([])), { EARSHOT_TALLY_TOKEN: "t0k", GRPC_PORT: "6000" }) as Record<string, unknown>;
    expect(config).toMatchObject({ EARSHOT_TALLY_TOKEN: "t0k", EARSHOT_TALLY_LIMIT: 3, GRPC_PORT: 6000, LOG_LEVEL: "info" });
    expect(() => loadConfig(serviceMainConfigSchema(consumerOnly([])), { EARSHOT_TALLY_LIMIT: "many" })).toThrow("EARSHOT_TALLY_LIMIT");
  });

  it("mark secret ones, each on its own even when they share a schema", () => {
    const shared = z.string().min(1).optional();
    const shape = { A: secret(shared, { requiredWhenDeployed: true }), B: secret(shared), C: shared };
    expect(declaredSettings([{ owner: "tally", shape }])).toEqual([
      { name: "A", owner: "tally", secret: { requiredWhenDeployed: true } },
      { name: "B", owner: "tally", secret: {} },
      { name: "C", owner: "tally", secret: undefined },
    ]);
    expect(secretMarkOf(shared)).toBeUndefined();
  });

  it("refuses a setting two owners declare, naming both", () => {
    expect(() => combineSettings([{ owner: "edge", shape: { X: z.string() } }, { owner: "tally", shape: { X: z.string() } }])).toThrow(
      "setting X is declared by both edge and tally",
    );
  });
});
