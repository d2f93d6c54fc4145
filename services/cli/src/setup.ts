import { EDGE_STORE_NAME, ensureEdgeIndexes } from "@earshot/edge";
import { baseConfigSchema, createKafkaTopics, type DocumentStore, ensureServiceIndexes, openServiceStore, storeNameOf } from "@earshot/platform";
import { declaredTopics, serviceModules } from "@earshot/registry";
import type { Env } from "./config";
import { CommandFailed, fileProblem, messageOf } from "./failures";

// `earshot setup`: every service's store indexes and every Kafka topic the services declare, created
// before any replica starts (the chart runs it as a pre-install/pre-upgrade Job). Idempotent: an existing
// index or topic is kept. It reads the services' own settings (MONGO_URL, MONGO_DB_PREFIX, KAFKA_BROKERS,
// EARSHOT_MODE, EARSHOT_DATA_DIR), so it prepares exactly the databases the services will open.

export interface SetupOptions {
  env: Env;
  /** Overrides EARSHOT_DATA_DIR (the embedded store's directory). */
  dataDir?: string;
  partitions: number;
  replicationFactor: number;
  out: (line: string) => void;
}

/** A setting the environment lacks or has wrong: named, the run stops before touching anything. */
export class SetupConfigError extends CommandFailed {
  constructor(readonly problems: string[]) {
    super(`Cannot set up: ${problems.join("; ")}.`);
    this.name = "SetupConfigError";
  }
}

/** Why a store or the brokers could not be reached or prepared, in a line. */
const reasonOf = (err: unknown): string => fileProblem(err) ?? messageOf(err);

/**
 * Runs one step, turning its failure into one line naming what it was preparing: a store's directory in
 * use by a running Earshot or not a directory, a database or brokers that do not answer. A run stopped
 * this way leaves what it prepared before (indexes are created the same way again), nothing half made.
 */
const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (err) {
    throw new CommandFailed(`Cannot set up ${what}: ${reasonOf(err).replace(/\.?$/, ".")}`);
  }
};

const withStore = async (config: Parameters<typeof openServiceStore>[0], name: string, prepare: (store: DocumentStore) => Promise<void>): Promise<string> => {
  const where = config.MONGO_URL ? " in MongoDB" : "";
  const store = await step(`the ${name} store${where}`, () => openServiceStore(config, name));
  try {
    await step(`the ${name} store's indexes${where}`, () => prepare(store));
    return store.kind;
  } finally {
    await store.close();
  }
};

export const runSetup = async (options: SetupOptions): Promise<void> => {
  const parsed = baseConfigSchema.safeParse({ ...options.env, ...(options.dataDir ? { EARSHOT_DATA_DIR: options.dataDir } : {}) });
  if (!parsed.success) throw new SetupConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  const config = parsed.data;
  // In a cluster an unset datastore is a mistake: preparing an embedded store in the Job's pod would
  // prepare nothing the services use.
  if (config.EARSHOT_MODE === "cluster") {
    const missing = [...(config.MONGO_URL ? [] : ["MONGO_URL"]), ...(config.KAFKA_BROKERS?.length ? [] : ["KAFKA_BROKERS"])];
    if (missing.length > 0) throw new SetupConfigError(missing.map((name) => `${name} is required when EARSHOT_MODE=cluster`));
  }
  const outboxRetentionSeconds = config.EARSHOT_OUTBOX_RETENTION_HOURS * 3600;
  for (const module of serviceModules()) {
    const storeName = storeNameOf(module);
    const kind = await withStore(config, storeName, (store) => ensureServiceIndexes(module, store, { outboxRetentionSeconds }));
    options.out(`Indexes of ${module.name}${storeName === module.name ? "" : ` (store ${storeName})`}: ready (${kind}).`);
  }
  const kind = await withStore(config, EDGE_STORE_NAME, ensureEdgeIndexes);
  options.out(`Indexes of ${EDGE_STORE_NAME} (gateway, mcp-gateway): ready (${kind}).`);

  const brokers = config.KAFKA_BROKERS ?? [];
  if (brokers.length === 0) {
    options.out("No KAFKA_BROKERS: events use the in-process bus, no topic to create.");
    return;
  }
  const topics = await step(`the Kafka topics (KAFKA_BROKERS ${brokers.join(",")})`, () =>
    createKafkaTopics({
      brokers,
      clientId: `${config.KAFKA_CLIENT_ID}-setup`,
      topics: declaredTopics(),
      partitions: options.partitions,
      replicationFactor: options.replicationFactor,
    }),
  );
  for (const topic of topics.created) options.out(`Topic ${topic}: created (${options.partitions} partitions, replication ${options.replicationFactor}).`);
  for (const t of topics.existing) options.out(`Topic ${t.topic}: exists (${t.partitions} partitions), kept.`);
};
