import { z } from "zod";
import type { EventBus } from "./bus/port";
import { type Clock, systemClock } from "./clock";
import { type BaseConfig, grpcServiceConfigSchema, loadConfig } from "./config";
import type { GrpcServiceRegistration, StartedGrpcServer } from "./grpc/server";
import { startGrpcServer } from "./grpc/server";
import { createLogger, type Logger } from "./logger";
import { createMailer, type Mailer } from "./mail/mailer";
import { Outbox, OutboxRelay } from "./outbox/outbox";
import { onShutdownSignal, openEventBus, openServiceStore } from "./runtime";
import type { DocumentStore } from "./store/port";

// How every gRPC service is hosted, alone (its own main, one per Kubernetes Deployment) or beside the
// others in the all-in-one process: open its store and outbox, let the service wire itself, serve gRPC,
// and stop in the right order (stop taking calls, drain, flush the outbox, close the store).

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
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  grpc: Array<GrpcServiceRegistration<any>>;
  /** Starts background work (event consumers, schedulers) once the server is up. */
  start?(): Promise<void>;
  /** Stops background work; called after the gRPC drain, before the store closes. */
  stop?(): Promise<void>;
}

export interface ServiceModule {
  /** Short name: `account`. Names the store (database / data subdir) and the logger. */
  name: string;
  open(deps: ServiceDeps): Promise<OpenedService>;
}

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
  await outbox.ensureIndexes();
  const relay = new OutboxRelay({ store, bus: options.bus, clock, logger, outbox });
  const opened = await module.open({ config: options.config, store, bus: options.bus, outbox, clock, logger, mailer: options.mailer });
  const server = await startGrpcServer({ host: options.host, port: options.port, logger, services: opened.grpc });
  relay.start();
  await opened.start?.();
  let stopped: Promise<void> | undefined;
  return {
    name: module.name,
    address: server.address,
    server,
    stop: (drainMs) =>
      (stopped ??= (async () => {
        await server.drain(drainMs);
        await opened.stop?.();
        await relay.stop();
        await store.close();
      })()),
  };
};

/** The `main` of a service deployed on its own: config from env, Kafka/MongoDB when configured. */
/** `settings` adds a service's own settings to the shared ones (they reach it as `deps.config`). */
export const runServiceMain = async (module: ServiceModule, settings: z.ZodRawShape = {}): Promise<void> => {
  // The service's own settings ride along (the host passes the whole object on); the shared ones are typed.
  const config = { ...loadConfig(z.object(settings)), ...loadConfig(grpcServiceConfigSchema) };
  const logger = createLogger(module.name, { level: config.LOG_LEVEL });
  const bus = openEventBus(config, logger);
  const mailer = createMailer({ from: config.EARSHOT_MAIL_FROM, smtpUrl: config.EARSHOT_SMTP_URL, dataDir: config.EARSHOT_DATA_DIR, logger });
  const hosted = await hostService(module, { config, host: config.GRPC_HOST, port: config.GRPC_PORT, bus, logger, mailer });
  onShutdownSignal(logger, async () => {
    await hosted.stop(config.EARSHOT_DRAIN_MS);
    await bus.close();
    mailer.close();
  });
};
