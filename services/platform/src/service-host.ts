import { z } from "zod";
import type { BatchHandler, BatchSubscribeOptions, EventBus, MessageHandler, SubscribeOptions } from "./bus/port";
import { type Clock, systemClock } from "./clock";
import { type BaseConfig, grpcServiceConfigShape, type GrpcServiceConfig, loadConfig } from "./config";
import type { GrpcServiceRegistration, StartedGrpcServer } from "./grpc/server";
import { startGrpcServer } from "./grpc/server";
import { createLogger, type Logger } from "./logger";
import { createMailer, type Mailer } from "./mail/mailer";
import { Outbox, OutboxRelay } from "./outbox/outbox";
import { onShutdownSignal, openEventBus, openServiceStore } from "./runtime";
import { combineSettings, type SettingsShape } from "./settings";
import type { DocumentStore } from "./store/port";

// How every service is hosted, alone (its own main, one per Kubernetes Deployment) or beside the others
// in the all-in-one process: open its store and outbox, let the service wire itself, serve gRPC (or only
// gRPC health, for a pure event consumer), and stop in the right order (stop taking calls, drain, flush
// the outbox, close the store).

export interface ServiceDeps {
  config: BaseConfig;
  store: DocumentStore;
  bus: EventBus;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  mailer: Mailer;
}

export interface OpenedService {
  /**
   * The gRPC services it serves. None for a pure event consumer: its server then answers only
   * grpc.health.v1.Health, which the probes ask.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  grpc?: Array<GrpcServiceRegistration<any>>;
  /** Starts background work (event consumers, schedulers) once the server is up. */
  start?(): Promise<void>;
  /** Stops background work; called after the gRPC drain, before the store closes. */
  stop?(): Promise<void>;
}

/**
 * A service as its hosts see it. Besides `open`, what a host must know is declared here once: its own
 * settings (the all-in-one's configuration, the chart and the Secret are derived from them) and the
 * topics it consumes (the host refuses a subscription to any other).
 */
export interface ServiceModule {
  /** Short name: `account`. Names the store (database / data subdir) and the logger. */
  name: string;
  /** Its own settings, secret ones marked with `secret(...)`; they reach it in `deps.config`. */
  settings?: SettingsShape;
  /** The topics it subscribes to; none when omitted. */
  consumes?: readonly string[];
  open(deps: ServiceDeps): Promise<OpenedService>;
}

/** The bus as a service sees it: subscribing to a topic its module does not declare is refused. */
const declaredTopicsOnly = (bus: EventBus, module: ServiceModule): EventBus => {
  const declared = new Set(module.consumes ?? []);
  const check = (options: SubscribeOptions) => {
    const undeclared = options.topics.filter((t) => !declared.has(t));
    if (undeclared.length > 0) {
      throw new Error(`service ${module.name} subscribes to ${undeclared.join(", ")}, which its module does not declare in consumes`);
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
}

export interface HostedService {
  name: string;
  address: string;
  server: StartedGrpcServer;
  stop(drainMs: number): Promise<void>;
}

export const hostService = async (module: ServiceModule, options: HostOptions): Promise<HostedService> => {
  const logger = options.logger.child({ service: module.name });
  const clock = options.clock ?? systemClock;
  const store = await openServiceStore(options.config, module.name);
  const outbox = new Outbox(store, clock, module.name.replace(/-/g, "_"));
  await outbox.ensureIndexes(options.config.EARSHOT_OUTBOX_RETENTION_HOURS * 3600);
  const relay = new OutboxRelay({ store, bus: options.bus, clock, logger, outbox });
  const bus = declaredTopicsOnly(options.bus, module);
  const opened = await module.open({ config: options.config, store, bus, outbox, clock, logger, mailer: options.mailer });
  const verification = { callerSigningKey: options.config.EARSHOT_CALLER_SIGNING_KEY, operatorKey: options.config.EARSHOT_OPERATOR_KEY };
  const server = await startGrpcServer({ host: options.host, port: options.port, logger, services: opened.grpc ?? [], verification });
  relay.start();
  let stopped: Promise<void> | undefined;
  const stop = (drainMs: number) =>
    (stopped ??= (async () => {
      await server.drain(drainMs);
      await opened.stop?.();
      await relay.stop();
      await store.close();
    })());
  try {
    await opened.start?.();
  } catch (err) {
    // A service that cannot start (a refused subscription, an unreachable broker) leaves nothing running.
    await stop(0).catch(() => undefined);
    throw err;
  }
  return { name: module.name, address: server.address, server, stop };
};

/** The settings a service deployed on its own loads: the shared ones and those its module declares. */
export const serviceMainConfigSchema = (module: ServiceModule) =>
  z.object(combineSettings([{ owner: "platform", shape: grpcServiceConfigShape }, { owner: module.name, shape: module.settings ?? {} }]));

/** The `main` of a service deployed on its own: config from env, Kafka/MongoDB when configured. */
export const runServiceMain = async (module: ServiceModule): Promise<void> => {
  // The service's own settings ride along (the host passes the whole object on); the shared ones are typed.
  const config = loadConfig(serviceMainConfigSchema(module)) as GrpcServiceConfig;
  const logger = createLogger(module.name, { level: config.LOG_LEVEL });
  // A service alone keeps an in-process bus's log in its own directory (the all-in-one's is shared).
  const bus = await openEventBus(config, logger, `bus-${module.name}`);
  const mailer = createMailer({ from: config.EARSHOT_MAIL_FROM, smtpUrl: config.EARSHOT_SMTP_URL, dataDir: config.EARSHOT_DATA_DIR, logger });
  const hosted = await hostService(module, { config, host: config.GRPC_HOST, port: config.GRPC_PORT, bus, logger, mailer });
  onShutdownSignal(logger, async () => {
    await hosted.stop(config.EARSHOT_DRAIN_MS);
    await bus.close();
    mailer.close();
  });
};
