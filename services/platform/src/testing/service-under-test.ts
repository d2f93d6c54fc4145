import type { EventBus } from "../bus/port";
import { createInProcessBus } from "../bus/in-process";
import type { Clock } from "../clock";
import { baseConfigSchema, loadConfig } from "../config";
import { silentLogger } from "../logger";
import type { InProcessChannel } from "../grpc/in-process";
import { createMailer } from "../mail/mailer";
import { type HeldStore, hostService, type ServiceModule, sharedStores } from "../service-host";
import { makeTempDir } from "./tmp";

// A service hosted for a test as the all-in-one hosts it: its own embedded store in a temp data dir, a
// real gRPC server on a loopback port, the in-process bus, mail written as files under the data dir.

export interface ServiceUnderTest {
  /** `127.0.0.1:<port>` of its gRPC server. */
  address: string;
  /** The temp data dir (store files, `mail/`); removed by `stop`. */
  dataDir: string;
  bus: EventBus;
  /** Drains the server, closes the store and the bus (when this helper made it) and removes the data dir. */
  stop(): Promise<void>;
}

export interface HostForTestOptions {
  bus?: EventBus;
  clock?: Clock;
  /** The service's own settings (EARSHOT_* names, as the all-in-one's configuration carries them). */
  settings?: Record<string, string>;
  /** Also serve the service through this channel, as the all-in-one serves its gateway. */
  inProcess?: InProcessChannel;
  /**
   * Host it beside another deployable of its service, over the same store: the `stores` and `dataDir` of
   * `sharedTestStores()`, which the caller removes (`stop` then leaves the data dir).
   */
  shared?: SharedTestStores;
}

/** One data dir and store opener for several deployables hosted in a test, as the all-in-one shares them. */
export interface SharedTestStores {
  dataDir: string;
  openStore: (name: string) => Promise<HeldStore>;
  cleanup(): Promise<void>;
}

export const sharedTestStores = async (): Promise<SharedTestStores> => {
  const tmp = await makeTempDir("earshot-shared-");
  const openStore = sharedStores(loadConfig(baseConfigSchema, { EARSHOT_DATA_DIR: tmp.dir, LOG_LEVEL: "silent", EARSHOT_STORE_SYNC: "normal" }));
  return { dataDir: tmp.dir, openStore, cleanup: () => tmp.cleanup() };
}

export const hostServiceForTest = async <D>(module: ServiceModule<D>, options: HostForTestOptions = {}): Promise<ServiceUnderTest> => {
  const tmp = options.shared ? { dir: options.shared.dataDir, cleanup: async () => undefined } : await makeTempDir(`earshot-${module.name}-`);
  const bus = options.bus ?? createInProcessBus();
  const logger = silentLogger();
  const hosted = await hostService(module, {
    config: { ...options.settings, ...loadConfig(baseConfigSchema, { EARSHOT_DATA_DIR: tmp.dir, LOG_LEVEL: "silent", EARSHOT_STORE_SYNC: "normal" }) },
    host: "127.0.0.1",
    port: 0,
    bus,
    logger,
    mailer: createMailer({ from: "test@earshot.local", dataDir: tmp.dir, logger }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.inProcess ? { inProcess: options.inProcess } : {}),
    ...(options.shared ? { openStore: options.shared.openStore } : {}),
  }).catch(async (err: unknown) => {
    if (!options.bus) await bus.close();
    await tmp.cleanup();
    throw err;
  });
  return {
    address: hosted.address,
    dataDir: tmp.dir,
    bus,
    stop: async () => {
      await hosted.stop(1000);
      if (!options.bus) await bus.close();
      await tmp.cleanup();
    },
  };
};
