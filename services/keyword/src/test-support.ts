import { receivedEvent, testProjectCaller } from "@earshot/platform/testing";
import { PROJECT_EVENTS } from "@earshot/contracts/events";
import {
  type CloudEvent,
  type DocumentStore,
  ManualClock,
  newId,
  openEmbeddedStore,
  OUTBOX_COLLECTION,
  Outbox,
  type OutboxRecord,
  silentLogger,
} from "@earshot/platform";
import type { Caller, KeywordDeps, Membership, ProjectRole } from "./domain/deps";
import { handleProjectEvent } from "./domain/project-events";
import { openKeywordCollections } from "./store";
import { wireKeyword } from "./wiring";

// The domain-test world: the keyword verbs on the embedded store with the real outbox and workspace
// guard, a ManualClock, callers built like the RPC adapter builds them, and project events fed to the
// consumer as the bus would deliver them.

export interface KeywordWorld {
  store: DocumentStore;
  clock: ManualClock;
  deps: KeywordDeps;
  /** A second replica over the same store (its own guard queue), for races between processes. */
  replica(): KeywordDeps;
  /** A caller with roles in projects (`{ prj_…: "editor" }`), in workspace `wsp_1` unless told. */
  caller(roles?: Record<string, ProjectRole | Membership>, overrides?: { userId?: string; workspaceId?: string; allowances?: Partial<Caller["allowances"]> }): Caller;
  /** Delivers a project event to the service's consumer. */
  projectEvent(type: string, data: Record<string, unknown>): Promise<void>;
  /** A project created in `workspaceId` (its project.created delivered). */
  newProject(workspaceId?: string): Promise<string>;
  events(): Promise<Array<CloudEvent & { topic: string; key: string }>>;
  close(): Promise<void>;
}

export const openKeywordWorld = async (): Promise<KeywordWorld> => {
  const store = await openEmbeddedStore();
  // Now, not a fixed date: stores expire TTL-indexed records (effects, outbox) by the real time.
  const clock = new ManualClock(new Date());
  const collections = await openKeywordCollections(store);
  const replica = (): KeywordDeps => wireKeyword({ store, collections, outbox: new Outbox(store, clock, "keyword"), clock, logger: silentLogger() });
  const deps = replica();
  await deps.outbox.ensureIndexes();
  const projectEvent = (type: string, data: Record<string, unknown>) => handleProjectEvent(deps, receivedEvent(PROJECT_EVENTS, type, data, clock));
  return {
    store,
    clock,
    deps,
    replica,
    caller: testProjectCaller,
    projectEvent,
    newProject: async (workspaceId = "wsp_1") => {
      clock.advance(1000);
      const projectId = newId("prj", clock.now().getTime());
      await projectEvent("project.created", { projectId, workspaceId, ownerId: "usr_1", name: "Launch" });
      return projectId;
    },
    events: async () =>
      (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { _id: 1 } })).map((r) => ({ ...r.event, topic: r.topic, key: r.key })),
    close: () => store.close(),
  };
};

/** A keyword's required fields with sensible values; override what a test is about. */
export const keywordInput = (projectId: string, value: string, more: Record<string, unknown> = {}) => ({
  projectId,
  value,
  sources: ["x", "reddit"],
  aliases: [],
  excludedTerms: [],
  filters: {},
  caseSensitive: false,
  ...more,
});

export { refusalOf } from "@earshot/platform/testing";
