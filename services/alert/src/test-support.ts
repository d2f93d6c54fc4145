import { type CloudEvent, type DocumentStore, ManualClock, newId, openEmbeddedStore, OUTBOX_COLLECTION, Outbox, type OutboxRecord, silentLogger } from "@earshot/platform";
import { receivedEvent, testProjectCaller } from "@earshot/platform/testing";
import { PROJECT_EVENTS } from "@earshot/contracts/events";
import type { AlertDeps } from "./domain/deps";
import { handleProjectEvent } from "./domain/project-events";
import { openAlertCollections } from "./store";
import { wireAlert } from "./wiring";

// The domain-test world: the alert verbs on the embedded store with the real outbox, a ManualClock,
// callers built like the RPC adapter builds them, and project events fed to the consumer.

export const openAlertWorld = async () => {
  const store: DocumentStore = await openEmbeddedStore();
  const clock = new ManualClock(new Date());
  const collections = await openAlertCollections(store);
  const deps: AlertDeps = wireAlert({ collections, outbox: new Outbox(store, clock, "alert"), clock, logger: silentLogger() });
  await deps.outbox.ensureIndexes();
  const projectEvent = (type: string, data: Record<string, unknown>) => handleProjectEvent(deps, receivedEvent(PROJECT_EVENTS, type, data, clock));
  return {
    store,
    clock,
    deps,
    caller: testProjectCaller,
    projectEvent,
    newProject: async (workspaceId = "wsp_1", announce = true) => {
      clock.advance(1000);
      const projectId = newId("prj", clock.now().getTime());
      if (announce) await projectEvent("project.created", { projectId, workspaceId, ownerId: "usr_1", name: "Launch", digestTimezone: "UTC" });
      return projectId;
    },
    events: async (): Promise<Array<CloudEvent & { topic: string; key: string }>> =>
      (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { _id: 1 } })).map((r) => ({ ...r.event, topic: r.topic, key: r.key })),
    close: () => store.close(),
  };
};

export { refusalOf } from "@earshot/platform/testing";
