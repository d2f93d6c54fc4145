import { randomUUID } from "node:crypto";
import type { AsyncService, ServiceModule, Subscription } from "@earshot/platform";
import { SOURCES, type Source } from "@earshot/platform/core";
import { integrationV1 } from "@earshot/proto";
import { createCollectors } from "./collectors";
import { ProviderHttp } from "./collectors/provider-http";
import { integrationSettingsOf } from "./config";
import { startIntegrationConsumers } from "./consumers";
import type { IntegrationDeps } from "./domain/deps";
import { resolveEncryptionKey } from "./domain/encryption-key";
import { createQuotaLedger } from "./domain/quota-ledger";
import { Scheduler } from "./domain/scheduler";
import { TokenSealer } from "./domain/token-sealer";
import { LinkedinApi } from "./linkedin/linkedin-api";
import { healthRpc } from "./rpc/health-rpc";
import { linkedinRpc } from "./rpc/linkedin-rpc";
import { openIntegrationCollections } from "./store";

export const INTEGRATION_SERVICE_NAME = "earshot.integration.v1.IntegrationService";

export const integrationService: ServiceModule = {
  name: "integration",
  open: async (deps) => {
    const settings = integrationSettingsOf(deps.config);
    const collections = await openIntegrationCollections(deps.store);
    const key = await resolveEncryptionKey({ configured: settings.EARSHOT_ENCRYPTION_KEY, dataDir: deps.config.EARSHOT_DATA_DIR, embedded: !deps.config.MONGO_URL });
    const now = () => deps.clock.now();
    const collectorDeps = { settings, http: new ProviderHttp(), quota: createQuotaLedger(collections, settings, deps.clock), logger: deps.logger, now };
    const simulated = new Set(
      settings.EARSHOT_SIMULATED_SOURCES.split(",")
        .map((s) => s.trim())
        .filter((s): s is Source => (SOURCES as readonly string[]).includes(s)),
    );
    const domain: IntegrationDeps = {
      collections,
      outbox: deps.outbox,
      clock: deps.clock,
      logger: deps.logger,
      settings,
      collectors: createCollectors(collectorDeps),
      linkedinApi: new LinkedinApi(collectorDeps),
      sealer: new TokenSealer(key),
      replicaId: `${process.pid}-${randomUUID().slice(0, 8)}`,
      simulated,
    };
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
