import { createInProcessBus } from "../bus/in-process";
import type { DeliveredMessage } from "../bus/port";
import { readDeadLetter } from "../bus/redelivery";
import { systemClock } from "../clock";
import { silentLogger } from "../logger";
import { openEmbeddedStore } from "../store/embedded";
import { buildCloudEvent, topicForDomain } from "./cloud-event";
import { PROCESSED_EVENTS_COLLECTION, subscribeEvents } from "./consumer";

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
});
