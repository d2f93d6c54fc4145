import { randomBytes } from "node:crypto";
import { ACCOUNT_EVENTS, KEYWORD_EVENTS, type KeywordEvent, PROJECT_EVENTS } from "@earshot/contracts/events";
import { type CloudEvent, type DocumentStore, ManualClock, newId, openEmbeddedStore, OUTBOX_COLLECTION, Outbox, type OutboxRecord, silentLogger } from "@earshot/platform";
import { receivedEvent, testProjectCaller } from "@earshot/platform/testing";
import { type RunningSimulators, type SimPlatform, startSimulators } from "@earshot/simulators";
import type { MailMessage, Mailer, Source } from "@earshot/platform/core";
import type { Collector } from "./collectors/collector";
import { integrationSettingsOf, type IntegrationSettings } from "./config";
import type { IntegrationDeps } from "./domain/deps";
import { handleKeywordEvent, handleProjectEvent } from "./domain/copies";
import { handleOwnerEvent } from "./domain/feeds";
import { handleLinkedinAccountEvent, handleLinkedinProjectEvent } from "./domain/linkedin-lifecycle";
import { openIntegrationCollections } from "./store";
import { wireIntegration } from "./wiring";

// The domain-test world: the integration service's parts on the embedded store with the real outbox, a
// ManualClock, real collectors pointed at local simulators over HTTP, callers built as the RPC adapter
// builds them, and project, keyword and account events delivered as the bus would.

export interface IntegrationWorld {
  store: DocumentStore;
  clock: ManualClock;
  sims: RunningSimulators;
  settings: IntegrationSettings;
  deps: IntegrationDeps;
  /** Mail the service sent, in order. */
  sent: MailMessage[];
  /** Another process over the same store (its own outbox queue, collectors and replica id). */
  replica(): IntegrationDeps;
  caller: typeof testProjectCaller;
  /** Events staged in the outbox so far, oldest first. */
  events(): Promise<Array<CloudEvent & { topic: string; key: string }>>;
  projectEvent(type: string, data: Record<string, unknown>, to?: IntegrationDeps): Promise<void>;
  keywordEvent(type: string, data: Record<string, unknown>, to?: IntegrationDeps): Promise<void>;
  accountEvent(type: string, data: Record<string, unknown>, to?: IntegrationDeps): Promise<void>;
  /** An active project (project.created delivered), owner `usr_1` in `wsp_1` unless told. */
  newProject(fields?: Record<string, unknown>): Promise<string>;
  /** An active keyword on every source (keyword.created delivered); `more` overrides the event's fields. */
  /** A keyword event as the bus hands it, not handled yet. */
  keywordEventOf(type: string, data: Record<string, unknown>): KeywordEvent;
  addKeyword(projectId: string, value: string, more?: Record<string, unknown>): Promise<Record<string, unknown> & { keywordId: string }>;
  close(): Promise<void>;
}

export interface WorldOptions {
  /** Platforms the simulators serve and the collectors are pointed at (default all six: no test reaches a real host). */
  platforms?: readonly SimPlatform[];
  /** Simulators generate posts for searched terms (default false: only published posts exist). */
  generate?: boolean;
  /** More settings (EARSHOT_* names), over the simulators'. */
  settings?: Record<string, string>;
  /** Collectors used instead of the real ones for these sources, in every replica (tests of the scheduling around them). */
  collectors?: Partial<Record<Source, Collector>>;
}

export const openIntegrationWorld = async (options: WorldOptions = {}): Promise<IntegrationWorld> => {
  const store = await openEmbeddedStore();
  // Now, not a fixed date: stores expire TTL-indexed records by the real time.
  const clock = new ManualClock(new Date());
  const sims = await startSimulators({ platforms: options.platforms, generate: options.generate ?? false, now: () => clock.now().getTime() });
  const settings = integrationSettingsOf({ EARSHOT_POLL_INTERVAL_SECONDS: "60", ...sims.settings, ...options.settings });
  const collections = await openIntegrationCollections(store);
  const key = randomBytes(32);
  // Mail is kept, not sent: tests read what went out.
  const sent: MailMessage[] = [];
  const mailer: Mailer = {
    send: (message) => {
      sent.push(message);
      return Promise.resolve({ messageId: `<${sent.length}@test>`, via: "memory" });
    },
    close: () => undefined,
  };
  const replica = (): IntegrationDeps => {
    const wired = wireIntegration({ collections, outbox: new Outbox(store, clock, "integration"), clock, logger: silentLogger(), settings, key, http: { retryBaseMs: 1, random: () => 0.5 }, mailer, publicUrl: "https://earshot.test" });
    return { ...wired, collectors: { ...wired.collectors, ...options.collectors } };
  };
  const deps = replica();
  await deps.outbox.ensureIndexes();
  const projectEvent = async (type: string, data: Record<string, unknown>, to = deps) => {
    const event = receivedEvent(PROJECT_EVENTS, type, data, clock);
    await handleProjectEvent(to, event);
    await handleLinkedinProjectEvent(to, event);
  };
  const keywordEvent = (type: string, data: Record<string, unknown>, to = deps) => handleKeywordEvent(to, receivedEvent(KEYWORD_EVENTS, type, data, clock));
  // As the service's account consumer: the owner's address first, then the LinkedIn connections.
  const accountEvent = async (type: string, data: Record<string, unknown>, to = deps) => {
    const event = receivedEvent(ACCOUNT_EVENTS, type, data, clock);
    await handleOwnerEvent(to, event);
    await handleLinkedinAccountEvent(to, event);
  };
  return {
    store,
    clock,
    sims,
    sent,
    settings,
    deps,
    replica,
    caller: testProjectCaller,
    events: async () =>
      (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { _id: 1 } })).map((r) => ({ ...r.event, topic: r.topic, key: r.key })),
    projectEvent,
    keywordEvent,
    accountEvent,
    newProject: async (fields = {}) => {
      const projectId = newId("prj", clock.now().getTime());
      await projectEvent("project.created", {
        projectId,
        workspaceId: "wsp_1",
        ownerId: "usr_1",
        name: "Launch",
        digestTimezone: "UTC",
        enabledSources: ["x", "reddit", "youtube", "linkedin"],
        ...fields,
      });
      return projectId;
    },
    keywordEventOf: (type, data) => receivedEvent(KEYWORD_EVENTS, type, data, clock) as KeywordEvent,
    addKeyword: async (projectId, value, more = {}) => {
      const data = {
        keywordId: newId("kw", clock.now().getTime()),
        projectId,
        workspaceId: "wsp_1",
        groupId: `kwg_brand_${projectId}`,
        value,
        sources: ["x", "reddit", "youtube", "linkedin"],
        aliases: [],
        excludedTerms: [],
        filters: {},
        caseSensitive: false,
        active: true,
        ...more,
      };
      await keywordEvent("keyword.created", data);
      return data;
    },
    close: async () => {
      await sims.close();
      await store.close();
    },
  };
};

export { refusalOf } from "@earshot/platform/testing";
