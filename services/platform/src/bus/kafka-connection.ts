import { readFileSync } from "node:fs";
import type { SASLOptions } from "kafkajs";
import type { ConnectionOptions } from "node:tls";

// How the Kafka bus reaches its brokers beyond their addresses: TLS (KAFKA_SSL, KAFKA_SSL_CA_FILE) and SASL
// (KAFKA_SASL_*), mapped to kafkajs's `ssl` and `sasl` options.

export interface KafkaConnectionSettings {
  KAFKA_SSL?: "true" | "false" | undefined;
  KAFKA_SSL_CA_FILE?: string | undefined;
  KAFKA_SASL_MECHANISM?: "plain" | "scram-sha-256" | "scram-sha-512" | undefined;
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
}

export interface KafkaConnection {
  ssl?: true | ConnectionOptions;
  sasl?: SASLOptions;
}

/** What is wrong with the Kafka connection settings: SASL needs its username and password. */
export const kafkaConnectionProblems = (config: KafkaConnectionSettings): string[] => {
  if (!config.KAFKA_SASL_MECHANISM) return [];
  return (["KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD"] as const)
    .filter((name) => !config[name])
    .map((name) => `${name}: is required with KAFKA_SASL_MECHANISM=${config.KAFKA_SASL_MECHANISM}`);
};

/** kafkajs's `ssl` and `sasl` from the settings; `readFile` reads the CA file (injected by tests). */
export const kafkaConnection = (config: KafkaConnectionSettings, readFile: (path: string) => Buffer = readFileSync): KafkaConnection => {
  const connection: KafkaConnection = {};
  if (config.KAFKA_SSL_CA_FILE) connection.ssl = { ca: [readFile(config.KAFKA_SSL_CA_FILE)], rejectUnauthorized: true };
  else if (config.KAFKA_SSL === "true") connection.ssl = true;
  if (config.KAFKA_SASL_MECHANISM && config.KAFKA_SASL_USERNAME && config.KAFKA_SASL_PASSWORD) {
    connection.sasl = { mechanism: config.KAFKA_SASL_MECHANISM, username: config.KAFKA_SASL_USERNAME, password: config.KAFKA_SASL_PASSWORD } as SASLOptions;
  }
  return connection;
};
