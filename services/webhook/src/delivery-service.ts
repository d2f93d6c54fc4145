import { readFile } from "node:fs/promises";
import { resolveEncryptionKey, type ServiceModule, type Subscription } from "@earshot/platform";
import { deliverySettingsOf, deliverySettingsShape } from "./config";
import { CONSUMED_TOPICS, startDeliveryConsumers } from "./consumers";
import { openDeliveryCollections } from "./store";
import { wireDelivery } from "./wiring";

// A pure event consumer: no gRPC API (its server answers health alone), so nothing calls it. It hears what
// to send from the event topics and the webhook service's events, and reports back through its own.

export const deliveryService: ServiceModule = {
  name: "delivery",
  settings: deliverySettingsShape,
  consumes: CONSUMED_TOPICS,
  ensureIndexes: async (store) => {
    await openDeliveryCollections(store);
  },
  open: async (deps) => {
    const settings = deliverySettingsOf(deps.config);
    const collections = await openDeliveryCollections(deps.store);
    const key = await resolveEncryptionKey({ configured: settings.EARSHOT_ENCRYPTION_KEY, dataDir: deps.config.EARSHOT_DATA_DIR, embedded: !deps.config.MONGO_URL });
    const { deps: domain, worker } = wireDelivery({
      ...deps,
      collections,
      key,
      schedule: settings.EARSHOT_WEBHOOK_RETRY_SCHEDULE,
      sender: {
        allowPrivateNetworks: settings.EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        ...(settings.EARSHOT_WEBHOOK_CA_FILE ? { ca: await readFile(settings.EARSHOT_WEBHOOK_CA_FILE, "utf8") } : {}),
      },
    });
    let subscriptions: Subscription[] = [];
    return {
      start: async () => {
        subscriptions = await startDeliveryConsumers(deps, domain);
        worker.start();
      },
      stop: async () => {
        await Promise.all(subscriptions.map((s) => s.stop()));
        await worker.stop();
      },
    };
  },
};
