import { randomBytes } from "node:crypto";
import {
  type CloudEvent,
  type DocumentStore,
  type MailMessage,
  ManualClock,
  newId,
  openEmbeddedStore,
  Outbox,
  type OutboxRecord,
  OUTBOX_COLLECTION,
  silentLogger,
  TokenSealer,
} from "@earshot/platform";
import type { EndpointChanged } from "@earshot/webhook/events";
import type { DeliveryDeps } from "./domain/deps";
import { fanOut } from "./domain/fan-out";
import { saveEndpoint } from "./domain/replicas";
import type { DeliveryWorker } from "./domain/worker";
import type { SenderOptions } from "./sender";
import { type DeliveryCollections, openDeliveryCollections } from "./store";
import { wireDelivery } from "./wiring";

// The delivery service's test world: an in-memory store, the real outbox, a clock the test moves, mail
// kept in memory, the real guarded sender (tests point it at an HTTPS receiver and its CA), and
// `replica()` for another instance over the same store.

export const TEST_SCHEDULE = [0, 1, 2];

export interface DeliveryWorld {
  store: DocumentStore;
  clock: ManualClock;
  collections: DeliveryCollections;
  deps: DeliveryDeps;
  worker: DeliveryWorker;
  sealer: TokenSealer;
  mail: MailMessage[];
  replica(): { deps: DeliveryDeps; worker: DeliveryWorker };
  /** Registers an endpoint as the webhook service's event would; returns its id and plaintext secret. */
  endpoint(input: { url: string; workspaceId?: string; projectId?: string; eventTypes?: string[]; secrets?: string[]; dailyBudget?: number; version?: number; id?: string }): Promise<{ id: string; secrets: string[] }>;
  /** A published event, as the bus hands it over. */
  publish(type: string, data: Record<string, unknown>): Promise<CloudEvent>;
  /** Events the service committed, oldest first. */
  events(): Promise<CloudEvent[]>;
  close(): Promise<void>;
}

export const newTestSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

export const openDeliveryWorld = async (options: { sender?: SenderOptions; schedule?: number[] } = {}): Promise<DeliveryWorld> => {
  const store = await openEmbeddedStore();
  const clock = new ManualClock(new Date());
  const collections = await openDeliveryCollections(store);
  const key = randomBytes(32);
  const sealer = new TokenSealer(key);
  const mail: MailMessage[] = [];
  const mailer = { send: async (m: MailMessage) => (mail.push(m), { messageId: newId("req"), via: "memory" }), close: () => undefined };
  const replica = () =>
    wireDelivery({
      collections,
      outbox: new Outbox(store, clock, "delivery"),
      clock,
      logger: silentLogger(),
      mailer,
      key,
      schedule: options.schedule ?? TEST_SCHEDULE,
      sender: { allowPrivateNetworks: true, timeoutMs: 2_000, ...options.sender },
    });
  const first = replica();
  await first.deps.outbox.ensureIndexes();
  return {
    store,
    clock,
    collections,
    deps: first.deps,
    worker: first.worker,
    sealer,
    mail,
    replica,
    endpoint: async (input) => {
      const id = input.id ?? newId("whk", clock.now().getTime());
      const secrets = input.secrets ?? [newTestSecret()];
      const changed: EndpointChanged = {
        endpointId: id,
        workspaceId: input.workspaceId ?? "wsp_test",
        projectId: input.projectId ?? "",
        url: input.url,
        eventTypes: input.eventTypes ?? ["*"],
        active: true,
        secrets: secrets.map((s) => ({ sealed: sealer.seal(s), expiresAt: "" })),
        version: String(input.version ?? 1),
        dailyBudget: input.dailyBudget ?? 1000,
      };
      await saveEndpoint(first.deps, changed);
      return { id, secrets };
    },
    publish: async (type, data) => {
      const event: CloudEvent = {
        specversion: "1.0",
        id: newId("evt", clock.now().getTime()),
        source: "earshot/test",
        type,
        time: clock.now().toISOString(),
        datacontenttype: "application/json",
        data,
      } as CloudEvent;
      await fanOut(first.deps, event);
      return event;
    },
    events: async () => (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { createdAt: 1, _id: 1 } })).map((r) => r.event),
    close: () => store.close(),
  };
};
