import { existsSync } from "node:fs";
import { join } from "node:path";
import { type BaseConfig, type Doc, type DocumentStore, type Logger, openServiceStore } from "@earshot/platform";
import { adoptDeliveryStore, completeLogCopies } from "./domain/adoption";
import type { WebhookCollections } from "./store";

// Before the delivery worker was the webhook service's second deployable it was a service with a store of
// its own, `delivery` (`<dataDir>/delivery/` on the embedded store, database `<prefix>_delivery` on
// MongoDB). The delivery deployable adopts it once, at open, before its worker starts (domain/adoption.ts
// says what moves); a marker in the webhook store says it is done. The old store is left as it was: an
// operator removes it when the upgrade is behind them.

const OLD_STORE = "delivery";
const MARKERS = "adoptions";
const MARKER_ID = "delivery-store";

interface Marker extends Doc {
  at: Date;
  deliveries: number;
  completed: number;
}

const oldStoreOf = async (config: BaseConfig): Promise<DocumentStore | undefined> => {
  // On the embedded store, opening a directory that is not there would make one.
  if (!config.MONGO_URL && !existsSync(join(config.EARSHOT_DATA_DIR, OLD_STORE))) return undefined;
  return openServiceStore(config, OLD_STORE);
};

export const adoptLegacyStores = async (config: BaseConfig, store: DocumentStore, collections: WebhookCollections, logger: Logger, now: Date): Promise<void> => {
  const markers = store.collection<Marker>(MARKERS);
  if (!(await markers.findById(MARKER_ID))) {
    const old = await oldStoreOf(config);
    let deliveries = 0;
    if (old) {
      try {
        deliveries = await adoptDeliveryStore(
          { deliveries: old.collection("deliveries"), workspaces: old.collection("workspaces"), budgets: old.collection("budgets"), endpoints: old.collection("endpoints") },
          collections,
        );
      } finally {
        await old.close();
      }
    }
    // Log copies are only ever made by the code before the merge: completed once, with the adoption.
    const completed = await completeLogCopies(collections);
    await markers.updateOne({ _id: MARKER_ID }, { $set: { at: now, deliveries, completed } }, { upsert: true });
    if (deliveries + completed > 0) logger.info({ deliveries, completed }, "adopted the delivery service's store and completed the webhook service's delivery log");
  }
};
