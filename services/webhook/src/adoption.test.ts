import { existsSync } from "node:fs";
import { join } from "node:path";
import { baseConfigSchema, type Doc, type DocumentStore, loadConfig, openEmbeddedStore, openServiceStore, silentLogger } from "@earshot/platform";
import { makeTempDir } from "@earshot/platform/testing";
import { adoptDeliveryStore, completeLogCopies } from "./domain/adoption";
import { adoptLegacyStores } from "./legacy-store";
import { openWebhookCollections } from "./store";

// A data directory from before the delivery worker became the webhook service's second deployable: its
// deliveries, budgets, workspaces and failure streaks are adopted into the webhook store, and the
// webhook service's log copies are completed, so nothing stored is lost and the worker reads one shape.

const at = new Date("2026-11-20T10:00:00Z");

/** A collection as another version of the code left it: any document shape. */
const raw = (store: DocumentStore, name: string) => store.collection<Doc & Record<string, unknown>>(name);

const oldDelivery = {
  _id: "dlv_1",
  _v: 3,
  dedupeKey: "whk_1:evt_1",
  endpointId: "whk_1",
  workspaceId: "wsp_1",
  eventId: "evt_1",
  eventType: "mention.created",
  body: '{"type":"mention.created","timestamp":"2026-11-20T10:00:00.000Z","data":{}}',
  status: "retrying" as const,
  step: 1,
  attempts: [{ at, statusCode: 500, durationMs: 12, response: "down", error: "" }],
  createdAt: at,
  nextAttemptAt: at,
  charged: true,
  budgetDay: "2026-11-20",
  headers: { "webhook-id": "evt_1" },
};

/** The webhook service's log copy of a delivery, as `delivery.recorded` left it. */
const logCopy = (id: string, eventId: string, status: string) => ({
  _id: id,
  endpointId: "whk_1",
  workspaceId: "wsp_1",
  eventId,
  eventType: "mention.created",
  status,
  attempts: [{ at, statusCode: 200, durationMs: 9, response: "", error: "" }],
  createdAt: at,
  requestHeaders: { "webhook-id": eventId },
  requestBody: `{"id":"${eventId}"}`,
  budgetDay: "2026-11-20",
  version: 2,
});

describe("adopting the stores from before the merge", () => {
  it("moves the delivery store's documents in, completes the log copies left alone, and changes nothing the second time", async () => {
    const old = await openEmbeddedStore();
    const store = await openEmbeddedStore();
    try {
      const target = await openWebhookCollections(store);
      await raw(old, "deliveries").insertOne(oldDelivery);
      await raw(old, "workspaces").insertOne({ _id: "wsp_1", ownerEmail: "owner@example.com", deactivated: false });
      // Budgets expire two days after they are made: this one is fresh.
      await raw(old, "budgets").insertOne({ _id: "wsp_1:2026-11-20", workspaceId: "wsp_1", day: "2026-11-20", used: 7, createdAt: new Date() });
      await raw(old, "endpoints").insertOne({ _id: "whk_1", failingSince: at });
      await raw(store, "endpoints").insertOne({ _id: "whk_1", workspaceId: "wsp_1", projectId: null, name: "Hook", url: "https://hooks.example/", eventTypes: ["*"], active: true, secrets: [], dailyBudget: 1000, createdAt: at, updatedAt: at });
      await raw(store, "deliveries").insertOne(logCopy("dlv_1", "evt_1", "pending"));
      await raw(store, "deliveries").insertOne(logCopy("dlv_2", "evt_2", "succeeded"));
      const source = { deliveries: old.collection("deliveries"), workspaces: old.collection("workspaces"), budgets: old.collection("budgets"), endpoints: old.collection("endpoints") } as Parameters<typeof adoptDeliveryStore>[0];

      expect(await adoptDeliveryStore(source, target)).toBe(1);
      expect(await completeLogCopies(target)).toBe(1);

      const adopted = await target.deliveries.findById("dlv_1");
      expect(adopted).toMatchObject({ status: "retrying", body: oldDelivery.body, dedupeKey: "whk_1:evt_1", step: 1, charged: true });
      expect(adopted).not.toHaveProperty("requestBody");
      const completed = await target.deliveries.findById("dlv_2");
      expect(completed).toMatchObject({ status: "succeeded", body: '{"id":"evt_2"}', headers: { "webhook-id": "evt_2" }, dedupeKey: "whk_1:evt_2", step: 1, charged: true });
      expect(completed).not.toHaveProperty("version");
      expect(await target.workspaces.findById("wsp_1")).toMatchObject({ ownerEmail: "owner@example.com" });
      expect(await target.budgets.findById("wsp_1:2026-11-20")).toMatchObject({ used: 7 });
      expect(await target.endpoints.findById("whk_1")).toMatchObject({ failingSince: at });

      expect(await adoptDeliveryStore(source, target)).toBe(1);
      expect(await completeLogCopies(target)).toBe(0);
      expect(await target.deliveries.count({})).toBe(2);
    } finally {
      await old.close();
      await store.close();
    }
  });

  it("adopts an old data directory's delivery store once, and makes none where there was none", async () => {
    const tmp = await makeTempDir("earshot-adopt-");
    const config = loadConfig(baseConfigSchema, { EARSHOT_DATA_DIR: tmp.dir, LOG_LEVEL: "silent", EARSHOT_STORE_SYNC: "normal" });
    try {
      const old = await openServiceStore(config, "delivery");
      await raw(old, "deliveries").insertOne(oldDelivery);
      await old.close();
      const store = await openServiceStore(config, "webhook");
      const collections = await openWebhookCollections(store);
      await adoptLegacyStores(config, store, collections, silentLogger(), at);
      expect(await collections.deliveries.findById("dlv_1")).toMatchObject({ body: oldDelivery.body });
      // Adopted once: what the old store holds afterwards is not read again.
      await collections.deliveries.deleteOne({ _id: "dlv_1" });
      await adoptLegacyStores(config, store, collections, silentLogger(), at);
      expect(await collections.deliveries.count({})).toBe(0);
      await store.close();

      const fresh = await makeTempDir("earshot-adopt-fresh-");
      const freshConfig = loadConfig(baseConfigSchema, { EARSHOT_DATA_DIR: fresh.dir, LOG_LEVEL: "silent", EARSHOT_STORE_SYNC: "normal" });
      const freshStore = await openServiceStore(freshConfig, "webhook");
      await adoptLegacyStores(freshConfig, freshStore, await openWebhookCollections(freshStore), silentLogger(), at);
      expect(existsSync(join(fresh.dir, "delivery"))).toBe(false);
      await freshStore.close();
      await fresh.cleanup();
    } finally {
      await tmp.cleanup();
    }
  });
});
