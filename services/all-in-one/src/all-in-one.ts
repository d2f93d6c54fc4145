import { join, resolve } from "node:path";
import { startGateway, type StartedGateway } from "@earshot/edge";
import { type CallKeys, type Clock, createMailer, dkimFromSettings, createMetricsRegistry, createRpcMetrics, createStoreMetrics, type EventBus, type HostedService, hostService, InProcessChannel, type Logger, openEventBus, resolveCallKeys, sharedStores } from "@earshot/platform";
import { serviceAddresses, serviceModules } from "@earshot/registry";
import { type Bootstrap, bootstrapOwner, isFreshDataDir, removeServicesFile, writeServicesFile } from "./bootstrap";
import type { AllInOneConfig } from "./config";

// Every service in one process, each still behind its own loopback gRPC server (the CLI and other
// processes call those, signing each call with the keys in the data directory). The gateway calls them through the in-process channel by default: the same
// generated codec, metadata, server checks, error mapping and deadlines as a gRPC hop, without HTTP/2 and
// the socket (EARSHOT_IN_PROCESS_CALLS=off sends them over loopback gRPC instead). The adapters (embedded
// store, in-process bus) follow MONGO_URL / KAFKA_BROKERS when set.

export interface RunningEarshot {
  url: string;
  /** The admin port's origin (metrics, detailed readiness) when EARSHOT_METRICS_PORT is set. */
  adminUrl?: string;
  dataDir: string;
  services: Array<{ name: string; address: string }>;
  /** Set on the first start of an empty embedded data dir. */
  bootstrap: Bootstrap | undefined;
  /** The edge, for tests that look at what it holds (its membership cache). */
  gateway: StartedGateway;
  /** The bus every hosted service publishes to, for tests that wait on a service's events. */
  bus: EventBus;
  /** The keys its services check every call with; a client of theirs in this process passes them (tests do). */
  callKeys: CallKeys;
  stop(): Promise<void>;
}

/** `clock` lets tests move time (invitation expiry, key expiry); production uses the system clock. */
export const startAllInOne = async (config: AllInOneConfig, logger: Logger, clock?: Clock): Promise<RunningEarshot> => {
  const dataDir = resolve(config.EARSHOT_DATA_DIR);
  const fresh = !config.MONGO_URL && (await isFreshDataDir(dataDir));
  // Loopback is no trust boundary (any process of any user reaches these ports): every call is signed, with
  // the keys configured or else those in the data directory, so only a process that can read it calls.
  const keys = await resolveCallKeys({ dataDir, callerSigningKey: config.EARSHOT_CALLER_SIGNING_KEY, operatorKey: config.EARSHOT_OPERATOR_KEY });
  const cfg = { ...config, EARSHOT_DATA_DIR: dataDir, EARSHOT_CALLER_SIGNING_KEY: keys.callerSigningKey, EARSHOT_OPERATOR_KEY: keys.operatorKey };
  const bus = await openEventBus(cfg, logger);
  const dkim = dkimFromSettings(cfg as unknown as Record<string, unknown>);
  const mailer = createMailer({ from: cfg.EARSHOT_MAIL_FROM, smtpUrl: cfg.EARSHOT_SMTP_URL, dataDir, logger, ...(dkim ? { dkim } : {}) });
  const hosted: HostedService[] = [];
  let gateway: StartedGateway | undefined;
  let bootstrap: Bootstrap | undefined;
  const inProcess = cfg.EARSHOT_IN_PROCESS_CALLS === "on" ? new InProcessChannel() : undefined;
  const stop = async () => {
    await removeServicesFile(dataDir).catch(() => undefined);
    await gateway?.stop(cfg.EARSHOT_DRAIN_MS);
    await Promise.all(hosted.map((h) => h.stop(cfg.EARSHOT_DRAIN_MS)));
    await bus.close();
    mailer.close();
  };
  // With an admin port, one registry holds the gateway's HTTP metrics and every hosted service's RPC
  // metrics, so the one scrape sees what the split deployables' scrapes would.
  const metricsRegistry = cfg.EARSHOT_METRICS_PORT !== undefined ? createMetricsRegistry() : undefined;
  const rpcMetrics = metricsRegistry ? createRpcMetrics(metricsRegistry) : undefined;
  const storeMetrics = metricsRegistry ? createStoreMetrics(metricsRegistry) : undefined;
  // A service of several deployables (webhook's API and delivery worker) opens its one store once here.
  const openStore = sharedStores(cfg);
  try {
    for (const [i, module] of serviceModules().entries()) {
      const port = cfg.EARSHOT_GRPC_BASE_PORT === 0 ? 0 : cfg.EARSHOT_GRPC_BASE_PORT + i;
      hosted.push(await hostService(module, { config: cfg, host: "127.0.0.1", port, bus, logger, mailer, openStore, ...(rpcMetrics ? { metrics: rpcMetrics } : {}), ...(storeMetrics ? { storeMetrics } : {}), ...(clock ? { clock } : {}), ...(inProcess ? { inProcess } : {}) }));
    }
    const address = (name: string) => hosted.find((h) => h.name === name)?.address ?? "";
    // The first owner exists (and bootstrap.json is written) before the gateway answers: once /readyz says
    // ready, a script can read the key and use it.
    bootstrap = fresh ? await bootstrapOwner(dataDir, address("account"), keys.operatorKey) : undefined;
    gateway = await startGateway({
      host: cfg.HOST,
      port: cfg.PORT,
      addresses: serviceAddresses(address),
      logger: logger.child({ service: "gateway" }),
      config: cfg,
      publicUrl: cfg.EARSHOT_PUBLIC_URL,
      rateLimitPerMinute: cfg.EARSHOT_RATE_LIMIT_PER_MINUTE,
      authFailuresPerMinute: cfg.EARSHOT_AUTH_FAILURES_PER_MINUTE,
      credentialCacheMs: cfg.EARSHOT_CREDENTIAL_CACHE_MS,
      keepAliveSeconds: cfg.EARSHOT_KEEP_ALIVE_SECONDS,
      oauthKeysFile: cfg.EARSHOT_OAUTH_KEYS_FILE ?? join(dataDir, "oauth-signing-keys.json"),
      reloadOAuthKeys: cfg.EARSHOT_OAUTH_KEYS_FILE !== undefined,
      oauthRateLimitPerMinute: cfg.EARSHOT_OAUTH_RATE_LIMIT_PER_MINUTE,
      trustProxy: cfg.EARSHOT_TRUST_PROXY,
      ...(cfg.EARSHOT_METRICS_PORT !== undefined ? { metricsPort: cfg.EARSHOT_METRICS_PORT, metricsRegistry } : {}),
      bus,
      ...(clock ? { clock } : {}),
      ...(inProcess ? { inProcess } : {}),
    });
    await writeServicesFile(dataDir, { ...Object.fromEntries(hosted.map((h) => [h.name, h.address])), gateway: gateway.url });
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return { url: gateway.url, ...(gateway.adminUrl ? { adminUrl: gateway.adminUrl } : {}), dataDir, services: hosted.map((h) => ({ name: h.name, address: h.address })), bootstrap, gateway, bus, callKeys: keys, stop };
};
