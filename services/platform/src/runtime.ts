import { join } from "node:path";
import { createInProcessBus } from "./bus/in-process";
import { createKafkaBus } from "./bus/kafka";
import { kafkaConnection } from "./bus/kafka-connection";
import { openSqliteBusLog } from "./bus/sqlite-log";
import type { EventBus } from "./bus/port";
import { type BaseConfig, ConfigError } from "./config";
import type { Logger } from "./logger";
import { openEmbeddedStore } from "./store/embedded";
import { openMongoStore } from "./store/mongo";
import type { DocumentStore } from "./store/port";

// Picks adapters from configuration, the same way in every service: MongoDB when MONGO_URL is set
// (database `<prefix>_<service>`), else the embedded store under `<dataDir>/<service>/`; Kafka when
// KAFKA_BROKERS is set, else the in-process bus. In a cluster (EARSHOT_MODE=cluster) both are required.

export const openServiceStore = async (config: BaseConfig, service: string): Promise<DocumentStore> => {
  // loadConfig already refuses this; a host given a config another way is held to the same rule.
  if (config.EARSHOT_MODE === "cluster" && !config.MONGO_URL) throw new ConfigError(["MONGO_URL: is required when EARSHOT_MODE=cluster"]);
  if (config.MONGO_URL) {
    return openMongoStore({ url: config.MONGO_URL, database: `${config.MONGO_DB_PREFIX}_${service.replace(/-/g, "_")}` });
  }
  return openEmbeddedStore({ dir: join(config.EARSHOT_DATA_DIR, service), sync: config.EARSHOT_STORE_SYNC, cacheMb: config.EARSHOT_STORE_CACHE_MB });
};

/** Where the in-process bus keeps its log, under the data directory: the all-in-one's one bus. */
export const BUS_DIR = "bus";

/**
 * Kafka when configured; else the in-process bus with its log and positions in SQLite under
 * `<dataDir>/<busDir>`, kept as long as published events are (EARSHOT_OUTBOX_RETENTION_HOURS).
 */
export const openEventBus = async (config: BaseConfig, logger: Logger, busDir: string = BUS_DIR): Promise<EventBus> => {
  if (config.EARSHOT_MODE === "cluster" && !config.KAFKA_BROKERS?.length) throw new ConfigError(["KAFKA_BROKERS: is required when EARSHOT_MODE=cluster"]);
  if (config.KAFKA_BROKERS && config.KAFKA_BROKERS.length > 0) {
    return createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: config.KAFKA_CLIENT_ID, connection: kafkaConnection(config), logger });
  }
  const log = await openSqliteBusLog({
    dir: join(config.EARSHOT_DATA_DIR, busDir),
    sync: config.EARSHOT_STORE_SYNC,
    cacheMb: config.EARSHOT_STORE_CACHE_MB,
    retainMs: config.EARSHOT_OUTBOX_RETENTION_HOURS * 3600 * 1000,
  });
  return createInProcessBus({ logger, log });
};

/**
 * Runs `stop` once on SIGTERM or SIGINT and exits 0 when it finishes, 1 when it fails or takes longer than
 * `limitMs` (Kubernetes sends SIGKILL after its grace period anyway; exiting first keeps logs honest).
 */
export const onShutdownSignal = (logger: Logger, stop: () => Promise<void>, limitMs = 10_000): void => {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error({ limitMs }, "shutdown took too long; exiting");
      process.exit(1);
    }, limitMs);
    timer.unref();
    stop().then(
      () => {
        logger.info("stopped");
        logger.flush?.();
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
};
