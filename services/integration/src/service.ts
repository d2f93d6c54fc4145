import { ACCOUNT_EVENTS } from "@earshot/account/events";
import { KEYWORD_EVENTS } from "@earshot/keyword/events";
import { type AsyncService, resolveEncryptionKey, type ServiceModule, type Subscription } from "@earshot/platform";
import { PROJECT_EVENTS } from "@earshot/project/events";
import { integrationV1 } from "@earshot/proto";
import { integrationSettingsOf, integrationSettingsShape } from "./config";
import { startIntegrationConsumers } from "./consumers";
import { Scheduler } from "./domain/scheduler";
import { healthRpc } from "./rpc/health-rpc";
import { linkedinRpc } from "./rpc/linkedin-rpc";
import { openIntegrationCollections } from "./store";
import { wireIntegration } from "./wiring";

export const INTEGRATION_SERVICE_NAME = "earshot.integration.v1.IntegrationService";

export const integrationService: ServiceModule = {
  name: "integration",
  settings: integrationSettingsShape,
  consumes: [PROJECT_EVENTS.topic, KEYWORD_EVENTS.topic, ACCOUNT_EVENTS.topic],
  ensureIndexes: async (store) => {
    await openIntegrationCollections(store);
  },
  open: async (deps) => {
    const settings = integrationSettingsOf(deps.config);
    const collections = await openIntegrationCollections(deps.store);
    const key = await resolveEncryptionKey({ configured: settings.EARSHOT_ENCRYPTION_KEY, dataDir: deps.config.EARSHOT_DATA_DIR, embedded: !deps.config.MONGO_URL });
    const domain = wireIntegration({ collections, outbox: deps.outbox, clock: deps.clock, logger: deps.logger, settings, key });
    const scheduler = new Scheduler(domain);
    const handlers: AsyncService<integrationV1.IntegrationServiceServer> = { ...healthRpc(domain), ...linkedinRpc(domain) };
    let subscriptions: Subscription[] = [];
    return {
      grpc: [{ name: INTEGRATION_SERVICE_NAME, definition: integrationV1.IntegrationServiceService, handlers }],
      start: async () => {
        subscriptions = await startIntegrationConsumers(deps, domain, (projectId) => scheduler.projectChanged(projectId));
        scheduler.start();
      },
      stop: async () => {
        await scheduler.stop();
        await Promise.all(subscriptions.map((s) => s.stop()));
      },
    };
  },
};
