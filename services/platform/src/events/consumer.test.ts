import { createInProcessBus } from "../bus/in-process";
import type { DeliveredMessage } from "../bus/port";
import { readDeadLetter } from "../bus/redelivery";
import { systemClock } from "../clock";
import { silentLogger } from "../logger";
import { openEmbeddedStore } from "../store/embedded";
import { projectV1Events } from "@earshot/proto";
import { checkStagedEvents, publishedEvent } from "../testing/event-checks";
import { buildCloudEvent, busMessageOf, topicForDomain } from "./cloud-event";
import { PROCESSED_EVENTS_COLLECTION, subscribeDomainEvents, subscribeEventBatches, subscribeEvents } from "./consumer";
import { defineEventCatalog, stageEvent } from "./event-catalog";

const topic = topicForDomain("project");
const eventMessage = (id: string) => {
  const event = { ...buildCloudEvent({ type: "project.created", source: "earshot/project", data: { n: 1 } }, systemClock), id };
  return { topic, key: "prj_1", value: JSON.stringify(event), headers: { "ce-id": id } };
};

describe("event consumer", () => {
  it("dead-letters an event whose handler fails on every attempt of its policy, and records it as not handled", async () => {
    const bus = createInProcessBus({ wait: async () => undefined });
    const store = await openEmbeddedStore();
    const letters: DeliveredMessage[] = [];
    await bus.subscribe({ groupId: "ops", topics: [`${topic}.dlq`] }, async (m) => void letters.push(m));
    let calls = 0;
    await subscribeEvents({
      bus,
      store,
      clock: systemClock,
      logger: silentLogger(),
      groupId: "mentions",
      topics: [topic],
      redelivery: { maxAttempts: 2 },
      handle: async () => {
        calls += 1;
        throw new Error("downstream unavailable");
      },
    });
    await bus.publish([eventMessage("evt_1")]);
    expect(calls).toBe(2);
    expect(letters.map((m) => readDeadLetter(m))).toEqual([
      expect.objectContaining({ group: "mentions", attempts: 2, error: "downstream unavailable", original: expect.objectContaining({ topic }) }),
    ]);
    expect(await store.collection(PROCESSED_EVENTS_COLLECTION).count({})).toBe(0);
    await bus.close();
    await store.close();
  });

  it("handles an event once when it failed before and is delivered again, also as a repeat", async () => {
    const bus = createInProcessBus({ wait: async () => undefined });
    const store = await openEmbeddedStore();
    const handled: string[] = [];
    let failures = 0;
    await subscribeEvents({
      bus,
      store,
      clock: systemClock,
      logger: silentLogger(),
      groupId: "mentions",
      topics: [topic],
      handle: async (event) => {
        if (failures < 1) {
          failures += 1;
          throw new Error("transient");
        }
        handled.push(event.id);
      },
    });
    await bus.publish([eventMessage("evt_1"), eventMessage("evt_1")]);
    expect(handled).toEqual(["evt_1"]);
    expect(bus.metrics.deadLettered.readings()).toEqual([]);
    await bus.close();
    await store.close();
  });

  describe("in batches", () => {
    const open = async () => ({ bus: createInProcessBus({ wait: async () => undefined }), store: await openEmbeddedStore() });

    it("hands a burst over in few calls, each event once, and skips the events handled before", async () => {
      const { bus, store } = await open();
      const calls: string[][] = [];
      const options = { bus, store, clock: systemClock, logger: silentLogger(), groupId: "posts", topics: [topic], maxBatch: 100 };
      const sub = await subscribeEventBatches({ ...options, handle: async (events) => void calls.push(events.map((e) => e.id)) });
      const ids = Array.from({ length: 250 }, (_, i) => `evt_${String(i).padStart(3, "0")}`);
      // One repeat inside the burst, and the burst's first event again afterwards.
      await bus.publish([...ids, "evt_007"].map(eventMessage));
      await bus.publish([eventMessage("evt_000")]);
      expect(calls.flat()).toEqual(ids);
      expect(calls.length).toBeLessThanOrEqual(3);
      expect(await store.collection(PROCESSED_EVENTS_COLLECTION).count({})).toBe(250);
      // A consumer started again (a restart) finds them handled too.
      await sub.stop();
      await store.collection(PROCESSED_EVENTS_COLLECTION).deleteOne({ _id: "posts:evt_249" });
      const again: string[] = [];
      await bus.publish([eventMessage("evt_249"), eventMessage("evt_100")]);
      await subscribeEventBatches({ ...options, handle: async (events) => void again.push(...events.map((e) => e.id)) });
      await bus.publish([eventMessage("evt_250")]);
      expect(again).toEqual(["evt_249", "evt_250"]);
      await bus.close();
      await store.close();
    });

    it("records nothing as handled when the batch handler fails, so the events come again", async () => {
      const { bus, store } = await open();
      let calls = 0;
      await subscribeEventBatches({
        bus,
        store,
        clock: systemClock,
        logger: silentLogger(),
        groupId: "posts",
        topics: [topic],
        maxBatch: 10,
        redelivery: { maxAttempts: 1 },
        handle: async () => {
          calls += 1;
          throw new Error("cannot");
        },
      });
      await bus.publish([eventMessage("evt_1"), eventMessage("evt_2")]);
      // The batch, then each event alone (dead-lettered after its one attempt).
      expect(calls).toBe(3);
      expect(await store.collection(PROCESSED_EVENTS_COLLECTION).count({})).toBe(0);
      await bus.close();
      await store.close();
    });
  });
});

describe("domain event consumer", () => {
  // A catalog as a domain's events module declares it, over real proto messages.
  const PROJECTS = defineEventCatalog("project", {
    "project.created": projectV1Events.ProjectCreated,
    "project.archived": projectV1Events.ProjectArchived,
  });
  const open = async () => ({ bus: createInProcessBus({ wait: async () => undefined }), store: await openEmbeddedStore() });
  const common = (bus: ReturnType<typeof createInProcessBus>, store: Awaited<ReturnType<typeof openEmbeddedStore>>) => ({
    bus,
    store,
    clock: systemClock,
    logger: silentLogger(),
    groupId: "typed",
  });

  it("hands each event over decoded with its type's message: defaults filled in, members the message lacks dropped", async () => {
    const { bus, store } = await open();
    const seen: Array<[string, unknown]> = [];
    await subscribeDomainEvents({
      ...common(bus, store),
      events: PROJECTS,
      handle: async (event) => {
        // Narrowing on the type types the data.
        if (event.type === "project.created") seen.push([event.type, { name: event.data.name, sources: event.data.enabledSources }]);
        else seen.push([event.type, event.data]);
      },
    });
    await bus.publish([
      publishedEvent(PROJECTS, "project.created", { projectId: "prj_1", workspaceId: "wsp_1", name: "Launch", notInTheMessage: true }),
      publishedEvent(PROJECTS, "project.archived", { projectId: "prj_1", workspaceId: "wsp_1", notInTheMessage: true }),
    ]);
    expect(seen).toEqual([
      ["project.created", { name: "Launch", sources: [] }],
      ["project.archived", { projectId: "prj_1", workspaceId: "wsp_1" }],
    ]);
    await bus.close();
    await store.close();
  });

  it("passes over the types it was not asked for and types its catalog does not know, recording them as handled", async () => {
    const { bus, store } = await open();
    const types: string[] = [];
    await subscribeDomainEvents({ ...common(bus, store), events: PROJECTS, types: ["project.archived"], handle: async (event) => void types.push(event.type) });
    const unknown = busMessageOf(PROJECTS.topic, "prj_1", buildCloudEvent({ type: "project.renamed", source: PROJECTS.source, data: {} }, systemClock));
    await bus.publish([publishedEvent(PROJECTS, "project.created", { projectId: "prj_1" }), unknown, publishedEvent(PROJECTS, "project.archived", { projectId: "prj_1" })]);
    expect(types).toEqual(["project.archived"]);
    expect(await store.collection(PROCESSED_EVENTS_COLLECTION).count({})).toBe(3);
    await bus.close();
    await store.close();
  });

  it("hands batches over decoded, leaving out the types not asked for", async () => {
    const { bus, store } = await open();
    const batches: string[][] = [];
    await subscribeDomainEvents({
      ...common(bus, store),
      events: PROJECTS,
      types: ["project.created"],
      batch: { maxBatch: 10, handle: async (events) => void batches.push(events.map((e) => e.data.name)) },
    });
    await bus.publish([
      publishedEvent(PROJECTS, "project.created", { projectId: "prj_1", name: "One" }),
      publishedEvent(PROJECTS, "project.archived", { projectId: "prj_1" }),
      publishedEvent(PROJECTS, "project.created", { projectId: "prj_2", name: "Two" }),
    ]);
    expect(batches.flat()).toEqual(["One", "Two"]);
    await bus.close();
    await store.close();
  });

  it("stages an event of its catalog on the catalog's topic, and the staged-events check finds data that is not its message", () => {
    const staged = stageEvent(PROJECTS, "project.archived", { key: "prj_1", subject: "prj_1" }, { projectId: "prj_1", workspaceId: "wsp_1" });
    expect(staged).toEqual({ type: "project.archived", source: "earshot/project", subject: "prj_1", key: "prj_1", data: { projectId: "prj_1", workspaceId: "wsp_1" } });
    const event = (type: string, data: unknown) => ({ ...buildCloudEvent({ type, source: PROJECTS.source, data }, systemClock), topic: PROJECTS.topic });
    const { covered, problems } = checkStagedEvents(PROJECTS, [
      event("project.archived", { projectId: "prj_1", workspaceId: "wsp_1" }),
      // A field left out, a member the message lacks, a type without a message.
      event("project.archived", { projectId: "prj_1" }),
      event("project.archived", { projectId: "prj_1", workspaceId: "wsp_1", extra: 1 }),
      event("project.renamed", {}),
    ]);
    expect(covered).toEqual(new Set(["project.archived"]));
    expect(problems).toEqual([
      expect.stringContaining("is not the JSON form of its message"),
      expect.stringContaining("is not the JSON form of its message"),
      expect.stringContaining("project.renamed"),
    ]);
  });
});
