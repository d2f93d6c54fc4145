import { z } from "zod";
import { kafkaConnectionProblems, type KafkaConnectionSettings } from "./bus/kafka-connection";
import { grpcTlsProblems, type GrpcTlsSettings } from "./grpc/tls";
import { resolveSecretFiles, secretSettingNames } from "./secret-files";
import { DEFAULT_STORE_CACHE_MB } from "./store/sqlite-database";
import { secret } from "./settings";

// The only place that reads the environment. Each service composes its schema from the shared pieces
// below and calls `loadConfig` once at start; a bad value stops the process with every problem named.

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

export type Env = Record<string, string | undefined>;

export const loadConfig = <S extends z.ZodType>(schema: S, env: Env = process.env): z.infer<S> => {
  // Secret settings may be given as files (<NAME>_FILE, EARSHOT_SECRETS_DIR); see secret-files.ts.
  const files = resolveSecretFiles(secretSettingNames(schema), env);
  if (files.problems.length > 0) throw new ConfigError(files.problems);
  const parsed = schema.safeParse(files.env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".") || "(env)"}: ${i.message}`));
  }
  const missing = [...clusterModeProblems(parsed.data as Partial<Record<string, unknown>>), ...grpcTlsProblems(parsed.data as GrpcTlsSettings), ...kafkaConnectionProblems(parsed.data as KafkaConnectionSettings)];
  if (missing.length > 0) throw new ConfigError(missing);
  return parsed.data;
};

/**
 * What a process in a cluster (EARSHOT_MODE=cluster, which the chart and the kustomize base set) lacks: there
 * an unset MONGO_URL or KAFKA_BROKERS is a mistake, never a reason to fall back to the embedded store (data
 * per pod, lost on restart) or the in-process bus, and calls must be signed.
 */
export const clusterModeProblems = (config: Partial<Record<string, unknown>>): string[] => {
  if (config.EARSHOT_MODE !== "cluster") return [];
  const present = (name: string) => {
    const v = config[name];
    return Array.isArray(v) ? v.length > 0 : typeof v === "string" ? v.length > 0 : v !== undefined;
  };
  return CLUSTER_REQUIRED.filter((name) => !present(name)).map((name) => `${name}: is required when EARSHOT_MODE=cluster`);
};

const CLUSTER_REQUIRED = ["MONGO_URL", "KAFKA_BROKERS", "EARSHOT_CALLER_SIGNING_KEY"];

const port = z.coerce.number().int().min(0).max(65535);

const csv = z
  .string()
  .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean));

/** Settings every process shares: where data lives and which adapters to use. */
export const baseConfigShape = {
  /**
   * `embedded` (the default, also when unset: one machine, embedded store and in-process bus unless configured otherwise) or
   * `cluster`: MONGO_URL, KAFKA_BROKERS and EARSHOT_CALLER_SIGNING_KEY are then required at start.
   */
  EARSHOT_MODE: z.enum(["embedded", "cluster"]).optional(),
  /**
   * HMAC key the edge and the services sign each gRPC call with (over the caller it carries) and services
   * verify; when set, a service refuses any call without a valid, unexpired signature (or the operator's).
   * The all-in-one makes one in its data directory when it is not set (secrets/call-keys.ts).
   */
  EARSHOT_CALLER_SIGNING_KEY: secret(z.string().min(32, "must be at least 32 characters").optional()),
  /**
   * The operator credential: the CLI signs its calls with it (minting API keys for others needs it). When a
   * caller signing key is set, such calls need it; without either (a service hosted alone, as in tests)
   * they are open. The all-in-one makes one in its data directory when it is not set, which the CLI reads.
   */
  EARSHOT_OPERATOR_KEY: secret(z.string().min(32, "must be at least 32 characters").optional()),
  EARSHOT_DATA_DIR: z.string().min(1).default("./.data"),
  /**
   * A directory with a file per secret setting, named after it (a Kubernetes Secret mounted as a volume):
   * each secret setting not set otherwise is read from its file there. Any secret setting can also be given
   * as `<NAME>_FILE`, the path of a file holding it; a setting given twice is a start-up error.
   */
  EARSHOT_SECRETS_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** MongoDB connection string; when set, services use MongoDB instead of the embedded store. */
  MONGO_URL: secret(z.string().url().optional()),
  /** Prefix of the per-service database names (`earshot_account`, ...). */
  MONGO_DB_PREFIX: z.string().regex(/^[A-Za-z0-9_]+$/).default("earshot"),
  /** Comma-separated Kafka brokers; when set, events go through Kafka instead of the in-process bus. */
  KAFKA_BROKERS: csv.optional(),
  KAFKA_CLIENT_ID: z.string().default("earshot"),
  /** SMTP URL (smtp:// or smtps://); without it mail is written as .eml files under the data dir. */
  EARSHOT_SMTP_URL: secret(z.string().url().optional()),
  EARSHOT_MAIL_FROM: z.string().default("Earshot <no-reply@earshot.local>"),
  /**
   * How the embedded store commits: `full` (default) fsyncs every commit before acknowledging it, so an
   * acknowledged write survives a crash of the process and of the machine; `normal` survives a crash of
   * the process (kill -9) but may lose the last commits on a power cut, and commits faster.
   */
  EARSHOT_STORE_SYNC: z.enum(["full", "normal"]).default("full"),
  /**
   * MiB of pages each embedded database keeps in memory (the all-in-one opens ten: nine service stores and
   * the bus's log). Pages beyond it are read again from the OS's file cache.
   */
  EARSHOT_STORE_CACHE_MB: z.coerce.number().min(1).max(1024).default(DEFAULT_STORE_CACHE_MB),
  /** Hours a published event is kept in each service's outbox (for inspection) before it is deleted. */
  EARSHOT_OUTBOX_RETENTION_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(7 * 24),
  /**
   * Mutual TLS for gRPC between Earshot's processes, off unless all three are set: the CA that signs every
   * process's certificate, this process's certificate and its key (PEM files, e.g. cert-manager's ca.crt,
   * tls.crt and tls.key). Servers then require a client certificate; clients present theirs.
   */
  EARSHOT_GRPC_TLS_CA_FILE: z.string().min(1).optional(),
  EARSHOT_GRPC_TLS_CERT_FILE: z.string().min(1).optional(),
  EARSHOT_GRPC_TLS_KEY_FILE: z.string().min(1).optional(),
  /** The name the servers' certificates carry, when not the host dialled (one certificate for every service). */
  EARSHOT_GRPC_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** Kafka over TLS (`true`), checked against the system CAs or KAFKA_SSL_CA_FILE. */
  KAFKA_SSL: z.enum(["true", "false"]).optional(),
  /** A PEM file of the CA that signs the brokers' certificates (implies KAFKA_SSL). */
  KAFKA_SSL_CA_FILE: z.string().min(1).optional(),
  /** SASL authentication to Kafka: plain, scram-sha-256 or scram-sha-512; unset = none. */
  KAFKA_SASL_MECHANISM: z.enum(["plain", "scram-sha-256", "scram-sha-512"]).optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: secret(z.string().min(1).optional()),
  /** Milliseconds a SIGTERM drain may take before in-flight calls are cut. */
  EARSHOT_DRAIN_MS: z.coerce.number().int().min(0).max(60000).default(8000),
};

/**
 * `EARSHOT_PUBLIC_URL`, the origin clients use: the edge's, and every service that writes links (mail)
 * declares this one schema, so the hosts see one setting.
 */
export const publicUrlSetting = z.string().url().optional();

/**
 * The origin links and URLs are written with: `EARSHOT_PUBLIC_URL`, else `http://localhost:<PORT>` (8080
 * by default), the edge's own default on a fixed port; without a trailing slash.
 */
export const publicUrlOf = (config: Readonly<Record<string, unknown>>): string =>
  String(config.EARSHOT_PUBLIC_URL ?? `http://localhost:${String(config.PORT ?? 8080)}`).replace(/\/+$/, "");

/**
 * `EARSHOT_METRICS_PORT`: the port of a process's own listener for Prometheus (/metrics; on the gateways
 * also the per-service readiness), on the same host as its API; unset = none. One schema, declared by the
 * gRPC services and the edge alike, so the all-in-one sees one setting.
 */
export const metricsPortSetting = port.optional();

export const grpcServiceConfigShape = {
  ...baseConfigShape,
  GRPC_HOST: z.string().default("0.0.0.0"),
  GRPC_PORT: port.default(50051),
  EARSHOT_METRICS_PORT: metricsPortSetting,
};

export const baseConfigSchema = z.object(baseConfigShape);
export type BaseConfig = z.infer<typeof baseConfigSchema>;

export const grpcServiceConfigSchema = z.object(grpcServiceConfigShape);
export type GrpcServiceConfig = z.infer<typeof grpcServiceConfigSchema>;

export const configPort = port;
