import { Kafka, logLevel } from "kafkajs";

// Creates Kafka topics ahead of the services (the chart's pre-install Job), with the partitions and the
// replication the operator chose. Services create a missing topic on first use too, but with the bus's
// defaults (6 partitions, one replica), which a cluster of several brokers should not keep.

export interface CreateTopicsOptions {
  brokers: string[];
  clientId: string;
  topics: readonly string[];
  partitions: number;
  replicationFactor: number;
  /** A ready kafkajs client (SSL, SASL, tests); brokers and clientId are then its own. */
  kafka?: Kafka;
}

export interface CreatedTopics {
  created: string[];
  /** Topics that existed already, with their partition count: left as they are. */
  existing: Array<{ topic: string; partitions: number }>;
}

/**
 * Creates the topics that do not exist; an existing topic is kept whatever its partitions (adding some
 * would move keys to other partitions and break the per-key order consumers rely on). Idempotent.
 */
export const createKafkaTopics = async (options: CreateTopicsOptions): Promise<CreatedTopics> => {
  if (!Number.isInteger(options.partitions) || options.partitions < 1) throw new Error(`partitions must be a whole number of at least 1, not ${options.partitions}`);
  if (!Number.isInteger(options.replicationFactor) || options.replicationFactor < 1) {
    throw new Error(`replicationFactor must be a whole number of at least 1, not ${options.replicationFactor}`);
  }
  const kafka = options.kafka ?? new Kafka({ clientId: options.clientId, brokers: options.brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const wanted = [...new Set(options.topics)].sort();
    const present = new Set(await admin.listTopics());
    const missing = wanted.filter((t) => !present.has(t));
    // One topic per request: kafkajs answers a batch holding an existing topic without waiting for the
    // leaders of the others. A topic another process created meanwhile answers false, not an error.
    for (const topic of missing) {
      await admin.createTopics({ topics: [{ topic, numPartitions: options.partitions, replicationFactor: options.replicationFactor }], waitForLeaders: true });
    }
    const kept = wanted.filter((t) => present.has(t));
    const metadata = kept.length > 0 ? (await admin.fetchTopicMetadata({ topics: kept })).topics : [];
    return { created: missing, existing: metadata.map((t) => ({ topic: t.name, partitions: t.partitions.length })) };
  } finally {
    await admin.disconnect();
  }
};
