import { z } from "zod";
import { createInProcessBus } from "./bus/in-process";
import { loadConfig } from "./config";
import { createHealthChecker } from "./grpc/health";
import { systemClock } from "./clock";
import { consume } from "./events/declared-consumer";
import { defineEventCatalog, publishedEventOf, stageEvent } from "./events/event-catalog";
import { consumedTopics, serviceMainConfigSchema, type ServiceModule } from "./service-host";
import { combineSettings, declaredSettings, secret, secretMarkOf } from "./settings";
import { hostServiceForTest } from "./testing/service-under-test";

// A tiny catalog for the declared consumers below: one type whose data is `{ n }`.
const TALLY_EVENTS = defineEventCatalog("example", {
  "example.counted": { fromJSON: (o: unknown) => ({ n: Number((o as { n?: unknown }).n ?? 0) }) },
  "example.ignored": { fromJSON: (o: unknown) => ({ n: Number((o as { n?: unknown }).n ?? 0) }) },
});
const counted = (n: number) => publishedEventOf(TALLY_EVENTS, stageEvent(TALLY_EVENTS, "example.counted", { key: "p1" }, { n }), systemClock);

interface Tally {
  seen: number[];
}

// A pure event consumer, as the notifiers will be: no gRPC service of its own, one declared consumer.
const consumerOnly = (tally: Tally, extra: Partial<ServiceModule<Tally>> = {}): ServiceModule<Tally> => ({
  name: "tally",
  settings: { EARSHOT_TALLY_TOKEN: secret(z.string().min(1).optional()), EARSHOT_TALLY_LIMIT: z.coerce.number().default(3) },
  consumers: [
    consume(TALLY_EVENTS, {
      group: "tally.counts",
      types: ["example.counted"],
      handle: async (domain: Tally, event) => void domain.seen.push(event.data.n),
    }),
  ],
  open: async () => ({ domain: tally }),
  ...extra,
});

describe("hosting a service", () => {
  it("hosts a consumer-only module: its server answers only health, and its declared consumer gets the events decoded", async () => {
    const tally: Tally = { seen: [] };
    const bus = createInProcessBus();
    const hosted = await hostServiceForTest(consumerOnly(tally), { bus });
    const health = createHealthChecker(hosted.address);
    try {
      expect(await health.check("")).toBe("SERVING");
      expect(await health.check("earshot.tally.v1.TallyService")).toBe("SERVICE_UNKNOWN");
      // The in-process bus resolves a publish once every subscribed group has handled it.
      await bus.publish([counted(2), publishedEventOf(TALLY_EVENTS, stageEvent(TALLY_EVENTS, "example.ignored", { key: "p1" }, { n: 9 }), systemClock), counted(3)]);
      expect(tally.seen).toEqual([2, 3]);
    } finally {
      health.close();
      await hosted.stop();
      await bus.close();
    }
  });

  it("adding a consumer is a declaration: the host subscribes it with the module's topics and stops it with the service", async () => {
    const tally: Tally = { seen: [] };
    const bus = createInProcessBus();
    const module = consumerOnly(tally);
    expect(consumedTopics(module)).toEqual(["earshot.example.v1"]);
    const hosted = await hostServiceForTest(module, { bus });
    await bus.publish([counted(1)]);
    await hosted.stop();
    // Stopped with the service: nothing handles what comes after.
    await bus.publish([counted(5)]);
    expect(tally.seen).toEqual([1]);
    await bus.close();
  });

  it("refuses to start a module subscribing by hand to a topic none of its consumers reads, leaving nothing subscribed", async () => {
    const tally: Tally = { seen: [] };
    const bus = createInProcessBus();
    const rogue = consumerOnly(tally, {
      open: async (deps) => ({
        domain: tally,
        start: async () => {
          await deps.bus.subscribe({ groupId: "tally.rogue", topics: ["earshot.other.v1"] }, async () => undefined);
        },
      }),
    });
    try {
      await expect(hostServiceForTest(rogue, { bus })).rejects.toThrow("service tally subscribes to earshot.other.v1, which none of its module's declared consumers reads");
      await bus.publish([counted(4)]);
      expect(tally.seen).toEqual([]);
    } finally {
      await bus.close();
    }
  });

  it("refuses a module that declares consumers but hands them no domain", async () => {
    const bus = createInProcessBus();
    try {
      await expect(hostServiceForTest(consumerOnly({ seen: [] }, { open: async () => ({}) }), { bus })).rejects.toThrow("declares consumers but its open returned no domain");
    } finally {
      await bus.close();
    }
  });
});

describe("a service's declared settings", () => {
  it("are loaded with the shared ones by a service's own main, defaults and checks included", () => {
    const config = loadConfig(serviceMainConfigSchema(consumerOnly({ seen: [] })), { EARSHOT_TALLY_TOKEN: "t0k", GRPC_PORT: "6000" }) as Record<string, unknown>;
    expect(config).toMatchObject({ EARSHOT_TALLY_TOKEN: "t0k", EARSHOT_TALLY_LIMIT: 3, GRPC_PORT: 6000, LOG_LEVEL: "info" });
    expect(() => loadConfig(serviceMainConfigSchema(consumerOnly({ seen: [] })), { EARSHOT_TALLY_LIMIT: "many" })).toThrow("EARSHOT_TALLY_LIMIT");
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
