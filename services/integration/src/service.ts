import { type AsyncService, publicUrlOf, resolveEncryptionKey, type ServiceModule } from "@earshot/platform";
import { integrationV1 } from "@earshot/proto";
import { integrationSettingsOf, integrationSettingsShape } from "./config";
import { INTEGRATION_CONSUMERS, type IntegrationConsumerDomain } from "./consumers";
import { Scheduler } from "./domain/scheduler";
import { feedsRpc } from "./rpc/feeds-rpc";
import { healthRpc } from "./rpc/health-rpc";
import { linkedinRpc } from "./rpc/linkedin-rpc";
import { sampleRpc } from "./rpc/sample-rpc";
import { openIntegrationCollections } from "./store";
import { wireBlueskyStream, wireIntegration } from "./wiring";

export const INTEGRATION_SERVICE_NAME = "earshot.integration.v1.IntegrationService";

export const integrationService: ServiceModule<IntegrationConsumerDomain> = {
  name: "integration",
  settings: integrationSettingsShape,
  consumers: INTEGRATION_CONSUMERS,
  ensureIndexes: async (store) => {
    await openIntegrationCollections(store);
  },
  open: async (deps) => {
    const settings = integrationSettingsOf(deps.config);
    const collections = await openIntegrationCollections(deps.store);
    const key = await resolveEncryptionKey({ configured: settings.EARSHOT_ENCRYPTION_KEY, dataDir: deps.config.EARSHOT_DATA_DIR, embedded: !deps.config.MONGO_URL });
    const domain = wireIntegration({ collections, outbox: deps.outbox, clock: deps.clock, logger: deps.logger, settings, key, mailer: deps.mailer, publicUrl: publicUrlOf(deps.config as unknown as Record<string, unknown>) });
    const scheduler = new Scheduler(domain);
    const bluesky = wireBlueskyStream(domain);
    const handlers: AsyncService<integrationV1.IntegrationServiceServer> = { ...healthRpc(domain), ...linkedinRpc(domain), ...sampleRpc(domain), ...feedsRpc(domain) };
    return {
      domain: {
        deps: domain,
        changed: (projectId) => {
          void scheduler.projectChanged(projectId);
          bluesky.wake();
        },
      },
      grpc: [{ name: INTEGRATION_SERVICE_NAME, definition: integrationV1.IntegrationServiceService, handlers }],
      start: async () => {
        await scheduler.start();
        bluesky.start();
      },
      stop: async () => {
        await bluesky.stop();
        await scheduler.stop();
      },
    };
  },
};
