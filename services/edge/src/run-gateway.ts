import { join } from "node:path";
import { createLogger, onShutdownSignal, openEventBus } from "@earshot/platform";
import { addressesFromSettings } from "@earshot/registry";
import { loadGatewayConfig } from "./config";
import { startGateway } from "./gateway";

/** Runs the edge for one surface; `gateway` (REST) and `mcp-gateway` (MCP) are the two deployables. */
export const runGateway = async (defaultSurface: "rest" | "mcp") => {
  const loaded = loadGatewayConfig();
  const config = { ...loaded, EARSHOT_SURFACE: loaded.EARSHOT_SURFACE ?? defaultSurface };
  const logger = createLogger(config.EARSHOT_SURFACE === "mcp" ? "mcp-gateway" : "gateway", { level: config.LOG_LEVEL });
  // Project events keep this replica's membership cache current. Without Kafka a gateway of its own
  // hears no service's events (an in-process bus would stay silent), so it relies on the short cache age.
  const bus = config.KAFKA_BROKERS ? await openEventBus(config, logger) : undefined;
  const gateway = await startGateway({
    host: config.HOST,
    port: config.PORT,
    addresses: addressesFromSettings(config),
    logger,
    config,
    publicUrl: config.EARSHOT_PUBLIC_URL,
    rateLimitPerMinute: config.EARSHOT_RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: config.EARSHOT_AUTH_FAILURES_PER_MINUTE,
    credentialCacheMs: config.EARSHOT_CREDENTIAL_CACHE_MS,
    keepAliveSeconds: config.EARSHOT_KEEP_ALIVE_SECONDS,
    surfaces: { rest: config.EARSHOT_SURFACE !== "mcp", mcp: config.EARSHOT_SURFACE !== "rest" },
    oauthKeysFile: config.EARSHOT_OAUTH_KEYS_FILE ?? join(config.EARSHOT_DATA_DIR, "oauth-signing-keys.json"),
    // A key file of its own (the chart mounts it from a Secret) is kept current; the generated default is not.
    reloadOAuthKeys: config.EARSHOT_OAUTH_KEYS_FILE !== undefined,
    oauthRateLimitPerMinute: config.EARSHOT_OAUTH_RATE_LIMIT_PER_MINUTE,
    trustProxy: config.EARSHOT_TRUST_PROXY,
    ...(config.EARSHOT_METRICS_PORT !== undefined ? { metricsPort: config.EARSHOT_METRICS_PORT } : {}),
    ...(bus ? { bus } : {}),
  });
  onShutdownSignal(logger, async () => {
    await gateway.stop(config.EARSHOT_DRAIN_MS);
    await bus?.close();
  });
};

