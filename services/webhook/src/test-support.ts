import { randomBytes } from "node:crypto";
import {
  type CloudEvent,
  type DocumentStore,
  ManualClock,
  openEmbeddedStore,
  Outbox,
  type OutboxRecord,
  OUTBOX_COLLECTION,
  type Resolver,
  silentLogger,
  systemResolver,
} from "@earshot/platform";
import type { WebhookDeps } from "./domain/deps";
import { openWebhookCollections } from "./store";
import { wireWebhook } from "./wiring";

// The webhook service's test world: an in-memory store, the real outbox, a clock the test moves, and a
// resolver the test chooses (names it does not know resolve to a public address; `.invalid` names go to
// the system resolver, which never resolves them, as RFC 6761 has it), so the SSRF rule runs as in
// production without DNS.

export interface WebhookWorld {
  store: DocumentStore;
  clock: ManualClock;
  deps: WebhookDeps;
  /** Events committed so far, oldest first. */
  events(): Promise<CloudEvent[]>;
  close(): Promise<void>;
}

export const PUBLIC_ADDRESS = "93.184.216.34";

export const openWebhookWorld = async (options: { names?: Record<string, string[]>; allowPrivateNetworks?: boolean } = {}): Promise<WebhookWorld> => {
  const store = await openEmbeddedStore();
  const clock = new ManualClock(new Date());
  const collections = await openWebhookCollections(store);
  const resolve: Resolver = async (host) => options.names?.[host] ?? (host.endsWith(".invalid") ? systemResolver(host) : [PUBLIC_ADDRESS]);
  const deps = wireWebhook({
    collections,
    outbox: new Outbox(store, clock, "webhook"),
    clock,
    logger: silentLogger(),
    key: randomBytes(32),
    addressGuard: { resolve, ...(options.allowPrivateNetworks ? { allowPrivateNetworks: true } : {}) },
  });
  await deps.outbox.ensureIndexes();
  return {
    store,
    clock,
    deps,
    events: async () => (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { createdAt: 1, _id: 1 } })).map((r) => r.event),
    close: () => store.close(),
  };
};
