import { DomainError } from "../errors";
import { waitFor } from "../testing/tmp";
import type { DeliveredMessage, EventBus } from "./port";
import { deadLetterTopic, readDeadLetter } from "./redelivery";

// One behavioural contract for every event bus adapter (in-process always; Kafka when a broker exists).

export interface BusFixture {
  bus: EventBus;
  /** A topic name unique to this run, so runs against a shared broker do not see each other's messages. */
  topic: (name: string) => string;
  cleanup: () => Promise<void>;
}

export const describeBusContract = (adapterName: string, factory: () => Promise<BusFixture>, timeoutMs = 10_000): void => {
  describe(`event bus contract: ${adapterName}`, () => {
    let fx: BusFixture;
    beforeEach(async () => {
      fx = await factory();
    }, 60_000);
    afterEach(async () => {
      await fx.bus.close();
      await fx.cleanup();
    }, 60_000);

    const group = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`;

    it("delivers a published message with its key, value and headers", async () => {
      const topic = fx.topic("basic");
      const got: DeliveredMessage[] = [];
      await fx.bus.subscribe({ groupId: group("g"), topics: [topic] }, async (m) => void got.push(m));
      await fx.bus.publish([{ topic, key: "prj_1", value: '{"a":1}', headers: { "ce-type": "project.created" } }]);
      await waitFor(() => got.length === 1, timeoutMs);
      expect(got[0]).toMatchObject({ topic, key: "prj_1", value: '{"a":1}', headers: { "ce-type": "project.created" } });
    }, timeoutMs + 5_000);

    it("keeps the order of messages with the same key", async () => {
      const topic = fx.topic("order");
      const got: Record<string, number[]> = {};
      await fx.bus.subscribe({ groupId: group("g"), topics: [topic] }, async (m) => {
        (got[m.key] ??= []).push(Number(m.value));
      });
      const messages = Array.from({ length: 60 }, (_, i) => ({ topic, key: `prj_${i % 3}`, value: String(i) }));
      await fx.bus.publish(messages);
      await waitFor(() => Object.values(got).flat().length === 60, timeoutMs);
      for (const k of ["prj_0", "prj_1", "prj_2"]) {
        const values = got[k] ?? [];
        expect(values).toEqual([...values].sort((a, b) => a - b));
        expect(values).toHaveLength(20);
      }
    }, timeoutMs + 5_000);

    it("gives every consumer group its own copy", async () => {
      const topic = fx.topic("groups");
      const a: string[] = [];
      const b: string[] = [];
      await fx.bus.subscribe({ groupId: group("a"), topics: [topic] }, async (m) => void a.push(m.value));
      await fx.bus.subscribe({ groupId: group("b"), topics: [topic] }, async (m) => void b.push(m.value));
      await fx.bus.publish([{ topic, key: "k", value: "1" }]);
      await waitFor(() => a.length === 1 && b.length === 1, timeoutMs);
    }, timeoutMs + 5_000);

    // Tiny backoffs: the schedule itself is pinned down by the adapters' own tests, without sleeping.
    const quick = { initialBackoffMs: 1, maxBackoffMs: 5 };

    it("redelivers a message whose handler failed, before later messages of its key", async () => {
      const topic = fx.topic("retry");
      const seen: string[] = [];
      let failures = 0;
      await fx.bus.subscribe({ groupId: group("g"), topics: [topic], redelivery: quick }, async (m) => {
        if (m.value === "1" && failures < 2) {
          failures += 1;
          throw new Error("transient");
        }
        seen.push(m.value);
      });
      await fx.bus.publish([
        { topic, key: "k", value: "1" },
        { topic, key: "k", value: "2" },
      ]);
      await waitFor(() => seen.length === 2, timeoutMs * 3);
      expect(seen).toEqual(["1", "2"]);
      expect(failures).toBe(2);
      expect(fx.bus.metrics.deadLettered.readings()).toEqual([]);
    }, timeoutMs * 3 + 5_000);

    it("moves a message failing on every attempt to <topic>.dlq with its group, attempts and error, then handles the next one", async () => {
      const topic = fx.topic("poison");
      const groupId = group("g");
      const seen: string[] = [];
      const letters: DeliveredMessage[] = [];
      let attempts = 0;
      await fx.bus.subscribe({ groupId: group("dlq-reader"), topics: [deadLetterTopic(topic)] }, async (m) => void letters.push(m));
      await fx.bus.subscribe({ groupId, topics: [topic], redelivery: { ...quick, maxAttempts: 3 } }, async (m) => {
        if (m.value === "poison") {
          attempts += 1;
          throw new Error(`cannot handle ${m.value}`);
        }
        seen.push(m.value);
      });
      await fx.bus.publish([
        { topic, key: "prj_1", value: "poison", headers: { "ce-id": "evt_1" } },
        { topic, key: "prj_1", value: "after" },
      ]);
      await waitFor(() => seen.length === 1 && letters.length === 1, timeoutMs * 3);
      expect(seen).toEqual(["after"]);
      expect(attempts).toBe(3);
      expect(letters[0]).toMatchObject({ topic: `${topic}.dlq`, key: "prj_1", value: "poison" });
      expect(readDeadLetter(letters[0] as DeliveredMessage)).toMatchObject({
        original: { topic, key: "prj_1", value: "poison", headers: { "ce-id": "evt_1" } },
        group: groupId,
        attempts: 3,
        error: "cannot handle poison",
        offset: expect.any(String),
      });
      expect(fx.bus.metrics.deadLettered.value({ topic, group: groupId })).toBe(1);
    }, timeoutMs * 3 + 5_000);

    it("hands a burst to a batch subscription in runs of at most maxBatch, in order per key", async () => {
      const topic = fx.topic("batches");
      const calls: string[][] = [];
      await fx.bus.subscribeBatches({ groupId: group("g"), topics: [topic], maxBatch: 10 }, async (ms) => void calls.push(ms.map((m) => m.value)));
      await fx.bus.publish(Array.from({ length: 50 }, (_, i) => ({ topic, key: "prj_1", value: String(i) })));
      await waitFor(() => calls.flat().length === 50, timeoutMs);
      expect(calls.flat()).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
      expect(Math.max(...calls.map((c) => c.length))).toBeLessThanOrEqual(10);
      expect(calls.length).toBeLessThan(50);
    }, timeoutMs + 5_000);

    it("retries a batch whose failure is transient as a whole", async () => {
      const topic = fx.topic("batch-outage");
      const calls: string[][] = [];
      await fx.bus.subscribeBatches({ groupId: group("g"), topics: [topic], maxBatch: 10, redelivery: quick }, async (ms) => {
        calls.push(ms.map((m) => m.value));
        if (calls.length === 1) throw new DomainError("unavailable", "store away");
      });
      await fx.bus.publish(["1", "2", "3"].map((value) => ({ topic, key: "k", value })));
      await waitFor(() => calls.length === 2, timeoutMs);
      expect(calls[1]).toEqual(calls[0]);
      expect(calls[0]!.length).toBeGreaterThan(1);
    }, timeoutMs + 5_000);

    it("splits a batch failing on its own, handles the good messages and dead-letters the poison one", async () => {
      const topic = fx.topic("batch-poison");
      const groupId = group("g");
      const handled: string[] = [];
      const letters: DeliveredMessage[] = [];
      await fx.bus.subscribe({ groupId: group("dlq-reader"), topics: [deadLetterTopic(topic)] }, async (m) => void letters.push(m));
      await fx.bus.subscribeBatches({ groupId, topics: [topic], maxBatch: 10, redelivery: { ...quick, maxAttempts: 2 } }, async (ms) => {
        if (ms.some((m) => m.value === "poison")) throw new Error("cannot handle poison");
        handled.push(...ms.map((m) => m.value));
      });
      await fx.bus.publish(["a", "poison", "b"].map((value) => ({ topic, key: "k", value })));
      await waitFor(() => handled.length === 2 && letters.length === 1, timeoutMs * 3);
      expect(handled).toEqual(["a", "b"]);
      expect(readDeadLetter(letters[0] as DeliveredMessage)).toMatchObject({ original: { value: "poison" }, group: groupId, attempts: 2 });
      expect(fx.bus.metrics.deadLettered.value({ topic, group: groupId })).toBe(1);
    }, timeoutMs * 3 + 5_000);

    it("gives a new group the messages published before it subscribed", async () => {
      const topic = fx.topic("earlier");
      await fx.bus.publish([{ topic, key: "k", value: "before" }]);
      const got: string[] = [];
      await fx.bus.subscribe({ groupId: group("late"), topics: [topic] }, async (m) => void got.push(m.value));
      await fx.bus.publish([{ topic, key: "k", value: "after" }]);
      await waitFor(() => got.length === 2, timeoutMs);
      expect(got).toEqual(["before", "after"]);
    }, timeoutMs + 5_000);

    it("starts a new group with startFrom latest after the messages retained when it subscribed", async () => {
      const topic = fx.topic("latest");
      await fx.bus.publish([{ topic, key: "k", value: "before" }]);
      const got: string[] = [];
      await fx.bus.subscribe({ groupId: group("latest"), topics: [topic], startFrom: "latest" }, async (m) => void got.push(m.value));
      // Kafka resolves "latest" at its first fetch: publish until one arrives, then "before" cannot come.
      let n = 0;
      await waitFor(async () => {
        if (got.length === 0) await fx.bus.publish([{ topic, key: "k", value: `after ${n++}` }]);
        return got.length > 0;
      }, timeoutMs, 200);
      await fx.bus.publish([{ topic, key: "k", value: "marker" }]);
      await waitFor(() => got.includes("marker"), timeoutMs);
      expect(got).not.toContain("before");
      expect(got[0]).toMatch(/^after /);
    }, timeoutMs + 5_000);

    it("resumes a group after its last handled message when it subscribes again", async () => {
      const topic = fx.topic("resume");
      const groupId = group("resume");
      const first: string[] = [];
      const sub = await fx.bus.subscribe({ groupId, topics: [topic] }, async (m) => void first.push(m.value));
      await fx.bus.publish([{ topic, key: "k", value: "1" }]);
      await waitFor(() => first.length === 1, timeoutMs);
      await sub.stop();

      await fx.bus.publish([{ topic, key: "k", value: "2" }]);
      const second: string[] = [];
      await fx.bus.subscribe({ groupId, topics: [topic] }, async (m) => void second.push(m.value));
      await waitFor(() => second.length === 1, timeoutMs);
      // A marker behind "2" on the same key: once it arrives, "1" could only have come before it.
      await fx.bus.publish([{ topic, key: "k", value: "3" }]);
      await waitFor(() => second.length >= 2, timeoutMs);
      expect(second).toEqual(["2", "3"]);
    }, timeoutMs * 2 + 5_000);

    it("stops delivering to a stopped subscription", async () => {
      const topic = fx.topic("stop");
      const got: string[] = [];
      const sub = await fx.bus.subscribe({ groupId: group("g"), topics: [topic] }, async (m) => void got.push(m.value));
      await fx.bus.publish([{ topic, key: "k", value: "1" }]);
      await waitFor(() => got.length === 1, timeoutMs);
      await sub.stop();
      await fx.bus.publish([{ topic, key: "k", value: "2" }]);
      await new Promise((r) => setTimeout(r, 300));
      expect(got).toEqual(["1"]);
    }, timeoutMs + 5_000);
  });
};
