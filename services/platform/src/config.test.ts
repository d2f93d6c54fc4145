import { z } from "zod";
import { baseConfigShape, ConfigError, loadConfig } from "./config";
import { openEventBus, openServiceStore } from "./runtime";
import { silentLogger } from "./logger";

// In a cluster (EARSHOT_MODE=cluster, set by the chart and the kustomize base) a missing MongoDB URL, Kafka
// brokers or caller signing key stops the process naming each, never falling back to the embedded store.

const schema = z.object(baseConfigShape);
const CLUSTER = { EARSHOT_MODE: "cluster", MONGO_URL: "mongodb://db/?replicaSet=rs0", KAFKA_BROKERS: "kafka:9092", EARSHOT_CALLER_SIGNING_KEY: "k".repeat(64) };

describe("cluster mode", () => {
  it("starts with MongoDB, Kafka and the caller signing key", () => {
    expect(loadConfig(schema, CLUSTER)).toMatchObject({ EARSHOT_MODE: "cluster", KAFKA_BROKERS: ["kafka:9092"] });
  });

  it.each(["MONGO_URL", "KAFKA_BROKERS", "EARSHOT_CALLER_SIGNING_KEY"])("refuses to start without %s, naming it", (name) => {
    const env: Record<string, string> = { ...CLUSTER };
    delete env[name];
    expect(() => loadConfig(schema, env)).toThrow(new ConfigError([`${name}: is required when EARSHOT_MODE=cluster`]));
  });

  it("an empty KAFKA_BROKERS is missing too", () => {
    expect(() => loadConfig(schema, { ...CLUSTER, KAFKA_BROKERS: " , " })).toThrow("KAFKA_BROKERS: is required when EARSHOT_MODE=cluster");
  });

  it("the runtime refuses the embedded store and the in-process bus to a cluster config given another way", async () => {
    const config = { ...loadConfig(schema, CLUSTER), MONGO_URL: undefined, KAFKA_BROKERS: undefined };
    await expect(openServiceStore(config, "account")).rejects.toThrow("MONGO_URL: is required when EARSHOT_MODE=cluster");
    await expect(openEventBus(config, silentLogger())).rejects.toThrow("KAFKA_BROKERS: is required when EARSHOT_MODE=cluster");
  });

  it("the embedded default (mode unset) still needs none of them", () => {
    expect(loadConfig(schema, {})).toMatchObject({ EARSHOT_DATA_DIR: "./.data" });
  });
});
