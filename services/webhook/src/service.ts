import { type AsyncService, resolveEncryptionKey, type ServiceModule, type Subscription, subscribeDomainEvents } from "@earshot/platform";
import { webhookV1 } from "@earshot/proto";
import { webhookSettingsOf, webhookSettingsShape } from "./config";
import { DELIVERY_EVENTS } from "./delivery-events";
import { handleDeliveryEvents } from "./domain/deliveries";
import { webhookRpc } from "./rpc/webhook-rpc";
import { openWebhookCollections } from "./store";
import { wireWebhook } from "./wiring";

export const WEBHOOK_SERVICE_NAME = "earshot.webhook.v1.WebhookService";

export const webhookService: ServiceModule = {
  name: "webhook",
  settings: webhookSettingsShape,
  consumes: [DELIVERY_EVENTS.topic],
  ensureIndexes: async (store) => {
    await openWebhookCollections(store);
  },
  open: async (deps) => {
    const settings = webhookSettingsOf(deps.config);
    const collections = await openWebhookCollections(deps.store);
    const key = await resolveEncryptionKey({ configured: settings.EARSHOT_ENCRYPTION_KEY, dataDir: deps.config.EARSHOT_DATA_DIR, embedded: !deps.config.MONGO_URL });
    const domain = wireWebhook({ ...deps, collections, key, addressGuard: { allowPrivateNetworks: settings.EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS } });
    const handlers: AsyncService<webhookV1.WebhookServiceServer> = webhookRpc(domain);
    let subscription: Subscription | undefined;
    return {
      grpc: [{ name: WEBHOOK_SERVICE_NAME, definition: webhookV1.WebhookServiceService, handlers }],
      // The delivery log and failure deactivations, as the delivery service reports them.
      start: async () => {
        subscription = await subscribeDomainEvents({
          bus: deps.bus,
          store: deps.store,
          clock: deps.clock,
          logger: deps.logger,
          groupId: "webhook.deliveries",
          events: DELIVERY_EVENTS,
          // In batches: a round of attempts' reports kept in one commit.
          batch: { maxBatch: 200, handle: (events) => handleDeliveryEvents(domain, events) },
        });
      },
      stop: async () => {
        await subscription?.stop();
      },
    };
  },
};
