import { randomBytes } from "node:crypto";
import {
  type Clock,
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
  type Write,
} from "@earshot/platform";
import { type DeliverableEvent, isChatFormat, type WebhookFormat } from "./fields";
import type { DeliveryDeps, WebhookDeps } from "./domain/deps";
import { fanOutBatch } from "./domain/fan-out";
import type { DeliveryWorker } from "./domain/worker";
import type { SenderOptions } from "./sender";
import { ENDPOINTS, type EndpointDoc, openWebhookCollections, type WebhookCollections } from "./store";
import { wireDelivery, wireWebhook } from "./wiring";

// The delivery worker's test world: an in-memory store, the real outbox, a clock the test moves, mail
// kept in memory, the real guarded sender (tests point it at an HTTPS receiver and its CA), `replica()`
// for another instance over the same store, and `api`, the webhook API's verbs over that store.

export const TEST_SCHEDULE = [0, 1, 2];

export interface DeliveryWorld {
  store: DocumentStore;
  clock: ManualClock;
  collections: WebhookCollections;
  deps: DeliveryDeps;
  /** The `webhook` deployable's verbs over the same store (any host resolves to a public address). */
  api: WebhookDeps;
  worker: DeliveryWorker;
  sealer: TokenSealer;
  mail: MailMessage[];
  replica(): { deps: DeliveryDeps; worker: DeliveryWorker };
  /** Stores an endpoint as the API would; returns its id and plaintext secret. */
  endpoint(input: {
    url: string;
    workspaceId?: string;
    projectId?: string;
    eventTypes?: string[];
    secrets?: string[];
    dailyBudget?: number;
    id?: string;
    format?: WebhookFormat;
  }): Promise<{ id: string; secrets: string[] }>;
  /** A published event, as the bus hands it over. */
  publish(type: string, data: Record<string, unknown>): Promise<CloudEvent>;
  /** Events the service committed, oldest first. */
  events(): Promise<CloudEvent[]>;
  /** Every commit made on the store since the world opened, as its writes. */
  commits: Write[][];
  close(): Promise<void>;
}

/** A published event as the delivery consumer hands it to the fan-out. */
export const deliverableOf = (event: CloudEvent): DeliverableEvent => {
  const data = (event.data ?? {}) as Record<string, unknown>;
  // The worker's tests send the event's data as it is: what a payload holds is payloads.test.ts's concern.
  return { id: event.id, type: event.type, time: event.time, data: { workspaceId: String(data.workspaceId ?? ""), projectId: String(data.projectId ?? "") }, body: () => ({ data, context: {} }) };
};

export const newTestSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** `clock`: the services' clock instead of the manual one (`world.clock`), for tests of real-time pacing on a started worker. */
export const openDeliveryWorld = async (
  options: { sender?: SenderOptions; schedule?: number[]; apiAllowsPrivateNetworks?: boolean; clock?: Clock } = {},
): Promise<DeliveryWorld> => {
  const opened = await openEmbeddedStore();
  const commits: Write[][] = [];
  const store: DocumentStore = {
    kind: opened.kind,
    collection: (name) => opened.collection(name),
    commit: async (writes) => {
      await opened.commit(writes);
      commits.push(writes);
    },
    close: () => opened.close(),
  };
  const clock = new ManualClock(new Date());
  const serviceClock = options.clock ?? clock;
  const collections = await openWebhookCollections(store);
  const key = randomBytes(32);
  const sealer = new TokenSealer(key);
  const mail: MailMessage[] = [];
  const mailer = { send: async (m: MailMessage) => (mail.push(m), { messageId: newId("req"), via: "memory" }), close: () => undefined };
  const replica = () =>
    wireDelivery({
      collections,
      outbox: new Outbox(store, serviceClock, "webhook"),
      clock: serviceClock,
      logger: silentLogger(),
      mailer,
      key,
      schedule: options.schedule ?? TEST_SCHEDULE,
      publicUrl: "https://earshot.example",
      sender: { allowPrivateNetworks: true, timeoutMs: 2_000, ...options.sender },
    });
  const first = replica();
  await first.deps.outbox.ensureIndexes();
  const api = wireWebhook({ collections, outbox: first.deps.outbox, clock: serviceClock, logger: silentLogger(), key, addressGuard: { resolve: async () => ["93.184.216.34"], allowPrivateNetworks: options.apiAllowsPrivateNetworks === true } });
  return {
    api,
    commits,
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
      const secrets = input.secrets ?? (isChatFormat(input.format) ? [] : [newTestSecret()]);
      const now = serviceClock.now();
      const endpoint: EndpointDoc = {
        _id: id,
        _v: 1,
        workspaceId: input.workspaceId ?? "wsp_test",
        projectId: input.projectId ?? null,
        name: "Test endpoint",
        url: input.url,
        eventTypes: input.eventTypes ?? (isChatFormat(input.format) ? ["mention.created"] : ["*"]),
        ...(input.format ? { format: input.format } : {}),
        active: true,
        secrets: secrets.map((s) => ({ sealed: sealer.seal(s), createdAt: now })),
        dailyBudget: input.dailyBudget ?? 1000,
        createdAt: now,
        updatedAt: now,
      };
      await first.deps.outbox.commit([{ kind: "insert", collection: ENDPOINTS, doc: endpoint }], []);
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
      await fanOutBatch(first.deps, [deliverableOf(event)]);
      return event;
    },
    events: async () => (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { createdAt: 1, _id: 1 } })).map((r) => r.event),
    close: () => store.close(),
  };
};
