import { type AsyncService, resolveEncryptionKey, type ServiceModule } from "@earshot/platform";
import { webhookV1 } from "@earshot/proto";
import { WEBHOOK_STORE, webhookSettingsOf, webhookSettingsShape } from "./config";
import { webhookRpc } from "./rpc/webhook-rpc";
import { openWebhookCollections } from "./store";
import { wireWebhook } from "./wiring";

export const WEBHOOK_SERVICE_NAME = "earshot.webhook.v1.WebhookService";

// The webhook service's `webhook` deployable: the gRPC API the edge calls (endpoints, secrets, the delivery
// log, test sends, redeliveries, the budget get_usage reads). It consumes nothing: the `delivery`
// deployable works on the same store (delivery-service.ts).

export const webhookService: ServiceModule = {
  name: "webhook",
  store: WEBHOOK_STORE,
  settings: webhookSettingsShape,
  ensureIndexes: async (store) => {
    await openWebhookCollections(store);
  },
  open: async (deps) => {
    const settings = webhookSettingsOf(deps.config);
    const collections = await openWebhookCollections(deps.store);
    const key = await resolveEncryptionKey({ configured: settings.EARSHOT_ENCRYPTION_KEY, dataDir: deps.config.EARSHOT_DATA_DIR, embedded: !deps.config.MONGO_URL });
    const domain = wireWebhook({ ...deps, collections, key, addressGuard: { allowPrivateNetworks: settings.EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS } });
    const handlers: AsyncService<webhookV1.WebhookServiceServer> = webhookRpc(domain);
    return { grpc: [{ name: WEBHOOK_SERVICE_NAME, definition: webhookV1.WebhookServiceService, handlers }] };
  },
};
