import { z } from "zod";
import type { BatchHandler, BatchSubscribeOptions, EventBus, MessageHandler, SubscribeOptions, Subscription } from "./bus/port";
import { type Clock, systemClock } from "./clock";
import { type BaseConfig, grpcServiceConfigShape, type GrpcServiceConfig, loadConfig } from "./config";
import { type EventConsumer, subscribeAll, topicsOf } from "./events/declared-consumer";
import type { InProcessChannel } from "./grpc/in-process";
import { type AsyncClient, createGrpcClient, type GeneratedClientCtor, type GrpcClientOptions } from "./grpc/client";
import type { GrpcServiceRegistration, StartedGrpcServer } from "./grpc/server";
import { startGrpcServer } from "./grpc/server";
import { type GrpcTls, grpcTlsFromSettings } from "./grpc/tls";
import { createLogger, type Logger } from "./logger";
import { dkimFromSettings } from "./mail/dkim";
import { createMailer, type Mailer } from "./mail/mailer";
import { createMetricsRegistry, createRpcMetrics, exposeBusMetrics, type RpcMetrics } from "./metrics/rpc-metrics";
import { type StartedMetricsServer, startMetricsServer } from "./metrics/metrics-server";
import { createStoreMetrics, measuredStore, type StoreMetrics } from "./metrics/store-metrics";
import { Outbox, OutboxRelay } from "./outbox/outbox";
import { onShutdownSignal, openEventBus, openServiceStore } from "./runtime";
import { combineSettings, type SettingsShape } from "./settings";
import type { DocumentStore } from "./store/port";

// How every service is hosted, alone (its own main, one per Kubernetes Deployment) or beside the others
// in the all-in-one process: open its store and outbox, let the service wire itself, serve gRPC (or only
// gRPC health, for a pure event consumer), and stop in the right order (stop taking calls, drain, flush
// the outbox, close the store).

/** What a service may choose for a client of another service; the credentials are the process's. */
export type ServiceClientOptions = Pick<GrpcClientOptions, "deadlineMs" | "readAttempts" | "retryBackoffMs" | "isRead">;

/**
 * Opens a client of another service (one named in its registry entry's `calls`) at `address`. It presents
 * the process's certificate when mutual TLS is configured (EARSHOT_GRPC_TLS_*) and signs the caller it
 * forwards with EARSHOT_CALLER_SIGNING_KEY, as the edge's clients do; the host closes it after the drain.
 */
export type ConnectService = <C>(Ctor: GeneratedClientCtor<C>, address: string, options?: ServiceClientOptions) => AsyncClient<C>;

export interface ServiceDeps {
  config: BaseConfig;
  store: DocumentStore;
  bus: EventBus;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  mailer: Mailer;
  /** Every gRPC client a service makes of another goes through this, so none dials without the process's credentials. */
  connect: ConnectService;
}

export interface OpenedService<D = unknown> {
  /** What the service's declared consumers are handed: its wired domain. Required when it declares consumers. */
  domain?: D;
  /**
   * The gRPC services it serves. None for a pure event consumer: its server then answers only
   * grpc.health.v1.Health, which the probes ask.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  grpc?: Array<GrpcServiceRegistration<any>>;
  /** Starts background work (schedulers, workers) once the server is up and its consumers are subscribed. */
  start?(): Promise<void>;
  /** Stops background work; called after the gRPC drain and the consumers' stop, before the store closes. */
  stop?(): Promise<void>;
}

/**
 * A deployable of a service as its hosts see it. Besides `open`, what a host must know is declared here
 * once: its own settings (the all-in-one's configuration, the chart and the Secret are derived from them),
 * the store it shares with its service's other deployables, and its event consumers (the host subscribes
 * and stops them; the topics it consumes are theirs, and the host refuses a subscription to any other).
 */
export interface ServiceModule<D = unknown> {
  /** Short name of the deployable: `account`, `delivery`. Names the logger, the outbox and, unless `store` says otherwise, the store. */
  name: string;
  /**
   * The store (database / data subdir) it opens, when it is one of several deployables of one service over
   * one store: the webhook service's `delivery` deployable opens `webhook`. Its `name` unless said.
   */
  store?: string;
  /** Its own settings, secret ones marked with `secret(...)`; they reach it in `deps.config`. */
  settings?: SettingsShape;
  /** Its event consumers (`consume`, `consumeBatches`), handed the `domain` its `open` returns; none when omitted. */
  consumers?: ReadonlyArray<EventConsumer<D>>;
  /**
   * Creates the indexes of its own collections (the same calls `open` makes, which stay): `earshot setup`
   * (the chart's pre-install Job) runs it with the outbox's, before any replica starts.
   */
  ensureIndexes?(store: DocumentStore): Promise<void>;
  open(deps: ServiceDeps): Promise<OpenedService<D>>;
}

/** The store a module opens: its own name unless it shares its service's. */
export const storeNameOf = (module: Pick<ServiceModule<never>, "name" | "store">): string => module.store ?? module.name;

/** The topics a module consumes: those of its declared consumers, sorted. */
export const consumedTopics = (module: Pick<ServiceModule<never>, "consumers">): string[] => topicsOf(module.consumers ?? []);

/** The bus as a service sees it: subscribing to a topic its module does not declare is refused. */
const declaredTopicsOnly = (bus: EventBus, module: ServiceModule<never>): EventBus => {
  const declared = new Set(consumedTopics(module));
  const check = (options: SubscribeOptions) => {
    const undeclared = options.topics.filter((t) => !declared.has(t));
    if (undeclared.length > 0) {
      throw new Error(`service ${module.name} subscribes to ${undeclared.join(", ")}, which none of its module's declared consumers reads`);
    }
  };
  return {
    get kind() {
      return bus.kind;
    },
    get metrics() {
      return bus.metrics;
    },
    publish: (messages) => bus.publish(messages),
    subscribe: async (options: SubscribeOptions, handler: MessageHandler) => {
      check(options);
      return bus.subscribe(options, handler);
    },
    subscribeBatches: async (options: BatchSubscribeOptions, handler: BatchHandler) => {
      check(options);
      return bus.subscribeBatches(options, handler);
    },
    close: () => bus.close(),
  };
};

export interface HostOptions {
  config: BaseConfig;
  host: string;
  port: number;
  bus: EventBus;
  clock?: Clock;
  logger: Logger;
  mailer: Mailer;
  /** Where the server counts and times each answered call; none: not measured. */
  metrics?: RpcMetrics;
  /** Serves the service to callers in this process too (the all-in-one's gateway), without a socket. */
  inProcess?: InProcessChannel;
  /** Where the store's document writes are counted, by collection; none: not counted. */
  storeMetrics?: StoreMetrics;
  /** Opens the module's store; the all-in-one passes one `sharedStores` to all its modules. Its own otherwise. */
  openStore?: (name: string) => Promise<HeldStore>;
}

export interface HostedService {
  name: string;
  address: string;
  server: StartedGrpcServer;
  stop(drainMs: number): Promise<void>;
}

/** The credentials every client a hosted service opens carries: the process's certificate and caller signing key. */
export const serviceClientCredentials = (config: BaseConfig, tls: GrpcTls | undefined): Pick<GrpcClientOptions, "tls" | "callerSigningKey"> => ({
  ...(tls ? { tls } : {}),
  ...(config.EARSHOT_CALLER_SIGNING_KEY ? { callerSigningKey: config.EARSHOT_CALLER_SIGNING_KEY } : {}),
});

/** A store held by one deployable: released, not closed, since other deployables of its service may hold it too. */
export interface HeldStore {
  store: DocumentStore;
  release(): Promise<void>;
}

/**
 * Opens each service's store once for every deployable hosted in this process that opens it (the
 * all-in-one hosts the webhook service's `webhook` and `delivery` over one store): the last release closes it.
 */
export const sharedStores = (config: BaseConfig): ((name: string) => Promise<HeldStore>) => {
  const open = new Map<string, { store: Promise<DocumentStore>; holders: number }>();
  return async (name) => {
    let entry = open.get(name);
    if (!entry) {
      entry = { store: openServiceStore(config, name), holders: 0 };
      open.set(name, entry);
      entry.store.catch(() => open.delete(name));
    }
    entry.holders++;
    const held = entry;
    const store = await held.store;
    let released = false;
    return {
      store,
      release: async () => {
        if (released) return;
        released = true;
        if (--held.holders > 0) return;
        open.delete(name);
        await store.close();
      },
    };
  };
};

export const hostService = async <D>(module: ServiceModule<D>, options: HostOptions): Promise<HostedService> => {
  const logger = options.logger.child({ service: module.name });
  // Read before anything opens: a missing certificate file stops the start with its path.
  const tls = grpcTlsFromSettings(options.config);
  const credentials = serviceClientCredentials(options.config, tls);
  const clients: Array<{ close(): void }> = [];
  const connect: ConnectService = (Ctor, address, clientOptions = {}) => {
    const handle = createGrpcClient(Ctor, address, { ...clientOptions, ...credentials });
    clients.push(handle);
    return handle.client;
  };
  const clock = options.clock ?? systemClock;
  const held = await (options.openStore ?? sharedStores(options.config))(storeNameOf(module));
  const store = options.storeMetrics ? measuredStore(held.store, storeNameOf(module), options.storeMetrics) : held.store;
  const outbox = new Outbox(store, clock, module.name.replace(/-/g, "_"));
  await outbox.ensureIndexes(options.config.EARSHOT_OUTBOX_RETENTION_HOURS * 3600);
  const relay = new OutboxRelay({ store, bus: options.bus, clock, logger, outbox });
  const bus = declaredTopicsOnly(options.bus, module as ServiceModule<never>);
  const opened = await module.open({ config: options.config, store, bus, outbox, clock, logger, mailer: options.mailer, connect });
  const consumers = module.consumers ?? [];
  if (consumers.length > 0 && opened.domain === undefined) throw new Error(`service ${module.name} declares consumers but its open returned no domain for them`);
  const verification = { callerSigningKey: options.config.EARSHOT_CALLER_SIGNING_KEY, operatorKey: options.config.EARSHOT_OPERATOR_KEY };
  const server = await startGrpcServer({ host: options.host, port: options.port, logger, services: opened.grpc ?? [], verification, ...(options.metrics ? { metrics: options.metrics } : {}), ...(tls ? { tls } : {}), ...(options.inProcess ? { inProcess: options.inProcess } : {}) });
  relay.start();
  let subscriptions: Subscription[] = [];
  let stopped: Promise<void> | undefined;
  const stop = (drainMs: number) =>
    (stopped ??= (async () => {
      await server.drain(drainMs);
      // The consumers first, so no event reaches background work that is stopping.
      await Promise.all(subscriptions.map((s) => s.stop()));
      await opened.stop?.();
      // After the drain and the consumers: nothing in flight still calls out.
      for (const client of clients) client.close();
      await relay.stop();
      await held.release();
    })());
  try {
    subscriptions = await subscribeAll(consumers, { bus, store, clock, logger }, opened.domain as D);
    await opened.start?.();
  } catch (err) {
    // A service that cannot start (a refused subscription, an unreachable broker) leaves nothing running.
    await stop(0).catch(() => undefined);
    throw err;
  }
  return { name: module.name, address: server.address, server, stop };
};

/** The settings a service deployed on its own loads: the shared ones and those its module declares. */
export const serviceMainConfigSchema = (module: Pick<ServiceModule<never>, "name" | "settings">) =>
  z.object(combineSettings([{ owner: "platform", shape: grpcServiceConfigShape }, { owner: module.name, shape: module.settings ?? {} }]));

export interface StartedServiceMain {
  hosted: HostedService;
  /** `http://host:port` of the metrics and probes listener, when EARSHOT_METRICS_PORT is set. */
  metricsUrl: string | undefined;
  /** Stops taking calls, drains, and closes the metrics listener, the bus and the mailer. */
  stop(): Promise<void>;
}

/**
 * A service deployed on its own, from its loaded configuration: Kafka/MongoDB when configured, and on
 * EARSHOT_METRICS_PORT its Prometheus metrics (per-RPC counts and latencies, the bus's dead letters and
 * the process's own) and its probes, /healthz and /readyz, in plain HTTP.
 */
export const startServiceMain = async <D>(module: ServiceModule<D>, config: GrpcServiceConfig, logger: Logger): Promise<StartedServiceMain> => {
  // A service alone keeps an in-process bus's log in its own directory (the all-in-one's is shared).
  const bus = await openEventBus(config, logger, `bus-${module.name}`);
  const dkim = dkimFromSettings(config as unknown as Record<string, unknown>);
  const mailer = createMailer({ from: config.EARSHOT_MAIL_FROM, smtpUrl: config.EARSHOT_SMTP_URL, dataDir: config.EARSHOT_DATA_DIR, logger, ...(dkim ? { dkim } : {}) });
  const registry = config.EARSHOT_METRICS_PORT !== undefined ? createMetricsRegistry() : undefined;
  if (registry) exposeBusMetrics(registry, bus.metrics);
  const metrics = registry ? createRpcMetrics(registry) : undefined;
  const storeMetrics = registry ? createStoreMetrics(registry) : undefined;
  let hosted: HostedService | undefined;
  let metricsServer: StartedMetricsServer | undefined;
  const stop = async () => {
    // The drain first, so /readyz answers 503 meanwhile rather than the probe losing its port.
    await hosted?.stop(config.EARSHOT_DRAIN_MS);
    await metricsServer?.close();
    await bus.close();
    mailer.close();
  };
  try {
    hosted = await hostService(module, { config, host: config.GRPC_HOST, port: config.GRPC_PORT, bus, logger, mailer, ...(metrics ? { metrics } : {}), ...(storeMetrics ? { storeMetrics } : {}) });
    if (registry && config.EARSHOT_METRICS_PORT !== undefined) {
      const server = hosted.server;
      // The kubelet's probes (HTTP on the metrics port): up while the process is, ready while gRPC is SERVING.
      metricsServer = await startMetricsServer(registry, config.GRPC_HOST, config.EARSHOT_METRICS_PORT, { ready: () => server.serving() });
      logger.info({ url: metricsServer.url }, "metrics listening");
    }
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return { hosted, metricsUrl: metricsServer?.url, stop };
};

/** The `main` of a service deployed on its own: config from env, stopped on SIGTERM. */
export const runServiceMain = async <D>(module: ServiceModule<D>): Promise<void> => {
  // The service's own settings ride along (the host passes the whole object on); the shared ones are typed.
  const config = loadConfig(serviceMainConfigSchema(module)) as GrpcServiceConfig;
  const logger = createLogger(module.name, { level: config.LOG_LEVEL });
  const started = await startServiceMain(module, config, logger);
  onShutdownSignal(logger, started.stop);
};
