import { readFile } from "node:fs/promises";
import { publicUrlOf, resolveEncryptionKey, type ServiceModule } from "@earshot/platform";
import { deliverySettingsOf, deliverySettingsShape, WEBHOOK_STORE } from "./config";
import { DELIVERY_CONSUMERS } from "./consumers";
import type { DeliveryDeps } from "./domain/deps";
import { adoptLegacyStores } from "./legacy-store";
import { openWebhookCollections } from "./store";
import { wireDelivery } from "./wiring";

// The webhook service's `delivery` deployable: no gRPC API (its server answers health alone), so nothing
// calls it. It consumes the deliverable events and fans them out into deliveries, and its worker attempts
// and retries them, all in the webhook service's one store, which the `webhook` deployable's API reads.

export const deliveryService: ServiceModule<DeliveryDeps> = {
  name: "delivery",
  store: WEBHOOK_STORE,
  settings: deliverySettingsShape,
  consumers: DELIVERY_CONSUMERS,
  ensureIndexes: async (store) => {
    await openWebhookCollections(store);
  },
  open: async (deps) => {
    const settings = deliverySettingsOf(deps.config);
    const collections = await openWebhookCollections(deps.store);
    // What a data directory from before the merge holds is adopted before the worker reads anything.
    await adoptLegacyStores(deps.config, deps.store, collections, deps.logger, deps.clock.now());
    const key = await resolveEncryptionKey({ configured: settings.EARSHOT_ENCRYPTION_KEY, dataDir: deps.config.EARSHOT_DATA_DIR, embedded: !deps.config.MONGO_URL });
    const { deps: domain, worker } = wireDelivery({
      ...deps,
      collections,
      key,
      schedule: settings.EARSHOT_WEBHOOK_RETRY_SCHEDULE,
      publicUrl: publicUrlOf(deps.config as unknown as Record<string, unknown>),
      sender: {
        allowPrivateNetworks: settings.EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        ...(settings.EARSHOT_WEBHOOK_CA_FILE ? { ca: await readFile(settings.EARSHOT_WEBHOOK_CA_FILE, "utf8") } : {}),
      },
    });
    return {
      domain,
      start: async () => worker.start(),
      stop: () => worker.stop(),
    };
  },
};
