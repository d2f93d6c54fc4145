import { topicForDomain } from "../events/cloud-event";
import { waitFor } from "../testing/tmp";
import { describeBusContract } from "./bus-contract-test-support";
import { createInProcessBus } from "./in-process";
import type { DeliveredMessage } from "./port";
import { readDeadLetter } from "./redelivery";
import { unavailable } from "../errors";
import { VersionConflictError } from "../store/port";

const PROJECTS = topicForDomain("project");

let n = 0;
describeBusContract(
  "in-process",
  async () => ({
    bus: createInProcessBus(),
    topic: (name) => `test.${name}.${++n}`,
    cleanup: async () => undefined,
  }),
  3_000,
);

/** A wait that records the backoff asked for instead of sleeping. */
const recordingWait = () => {
  const delays: number[] = [];
  return { delays, wait: async (ms: number) => void delays.push(ms) };
};

const alwaysFails = async (): Promise<void> => {
  throw new Error("always");
};

describe("in-process bus specifics", () => {
  it("resolves publish only after every subscribed group handled the message", async () => {
    const bus = createInProcessBus();
    let handled = false;
    await bus.subscribe({ groupId: "slow", topics: ["t"] }, async () => {
      await new Promise((r) => setTimeout(r, 50));
      handled = true;
    });
    await bus.publish([{ topic: "t", key: "k", value: "v" }]);
    expect(handled).toBe(true);
    await bus.close();
  });

  it("replays retained messages to a group that subscribes later", async () => {
    const bus = createInProcessBus();
    await bus.publish([{ topic: "t", key: "k", value: "early" }]);
    const got: string[] = [];
    await bus.subscribe({ groupId: "late", topics: ["t"] }, async (m) => void got.push(m.value));
    await bus.publish([{ topic: "t", key: "k", value: "next" }]);
    expect(got).toEqual(["early", "next"]);
    await bus.close();
  });

  it("tries 5 times by default, backing off 100, 200, 400 and 800 ms, then dead-letters and resolves publish", async () => {
    const { delays, wait } = recordingWait();
    const bus = createInProcessBus({ wait });
    let attempts = 0;
    await bus.subscribe({ groupId: "g", topics: ["t"] }, async () => {
      attempts += 1;
      throw new Error("always");
    });
    await bus.publish([{ topic: "t", key: "k", value: "poison" }]);
    expect(attempts).toBe(5);
    expect(delays).toEqual([100, 200, 400, 800]);
    expect(bus.metrics.deadLettered.readings()).toEqual([{ labels: { topic: "t", group: "g" }, value: 1 }]);
    await bus.close();
  });

  it("keeps retrying a message through an outage (unavailable, lost store) at the capped backoff, and never dead-letters it", async () => {
    const { delays, wait } = recordingWait();
    const bus = createInProcessBus({ wait });
    const outage = [unavailable("account is down"), Object.assign(new Error("connection lost"), { name: "MongoNetworkError" })];
    let attempts = 0;
    const handled: string[] = [];
    await bus.subscribe({ groupId: "g", topics: ["t"] }, async (m) => {
      attempts += 1;
      if (attempts <= 40) throw outage[attempts % 2];
      handled.push(m.value);
    });
    await bus.publish([{ topic: "t", key: "k", value: "during the outage" }]);
    expect(handled).toEqual(["during the outage"]);
    expect(attempts).toBe(41);
    expect(delays.slice(0, 6)).toEqual([100, 200, 400, 800, 1600, 3000]);
    expect(new Set(delays.slice(5))).toEqual(new Set([3000]));
    expect(bus.metrics.deadLettered.readings()).toEqual([]);
    await bus.close();
  });

  it("counts only the message's own failures toward maxAttempts, not the transient ones between them", async () => {
    const { wait } = recordingWait();
    const bus = createInProcessBus({ wait });
    const letters: DeliveredMessage[] = [];
    await bus.subscribe({ groupId: "dlq", topics: ["t.dlq"] }, async (m) => void letters.push(m));
    let attempts = 0;
    await bus.subscribe({ groupId: "g", topics: ["t"] }, async () => {
      attempts += 1;
      throw attempts % 2 === 1 ? new VersionConflictError("items", "x") : new Error("bad message");
    });
    await bus.publish([{ topic: "t", key: "k", value: "poison" }]);
    expect(attempts).toBe(10);
    expect(readDeadLetter(letters[0]!)).toMatchObject({ attempts: 5, error: "bad message" });
    await bus.close();
  });

  it("caps the backoff at 3 s", async () => {
    const { delays, wait } = recordingWait();
    const bus = createInProcessBus({ wait, redelivery: { maxAttempts: 8 } });
    await bus.subscribe({ groupId: "g", topics: ["t"] }, alwaysFails);
    await bus.publish([{ topic: "t", key: "k", value: "poison" }]);
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3000, 3000]);
    await bus.close();
  });

  it("lets a subscription's policy override the bus's, field by field", async () => {
    const { delays, wait } = recordingWait();
    const bus = createInProcessBus({ wait, redelivery: { maxAttempts: 4, initialBackoffMs: 10 } });
    await bus.subscribe({ groupId: "g", topics: ["t"], redelivery: { maxAttempts: 2 } }, alwaysFails);
    await bus.publish([{ topic: "t", key: "k", value: "poison" }]);
    expect(delays).toEqual([10]);
    await bus.close();
  });

  it("refuses a redelivery policy without attempts or with a negative backoff", async () => {
    const bus = createInProcessBus();
    await expect(bus.subscribe({ groupId: "g", topics: ["t"], redelivery: { maxAttempts: 0 } }, alwaysFails)).rejects.toThrow(/maxAttempts/);
    await expect(bus.subscribe({ groupId: "g", topics: ["t"], redelivery: { initialBackoffMs: -1 } }, alwaysFails)).rejects.toThrow(
      /initialBackoffMs/,
    );
    expect(() => createInProcessBus({ redelivery: { maxAttempts: 1.5 } })).toThrow(/maxAttempts/);
    await bus.close();
  });

  it("keeps a message for the group, without dead-lettering it, when the subscription stops during a backoff", async () => {
    let waiting!: () => void;
    const backingOff = new Promise<void>((r) => (waiting = r));
    // Waits until the subscription stops, like a long backoff cut short.
    const bus = createInProcessBus({
      wait: (_ms, signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener("abort", () => resolve());
          waiting();
        }),
    });
    const letters: DeliveredMessage[] = [];
    await bus.subscribe({ groupId: "reader", topics: ["t.dlq"] }, async (m) => void letters.push(m));
    const sub = await bus.subscribe({ groupId: "g", topics: ["t"] }, alwaysFails);
    const published = bus.publish([{ topic: "t", key: "k", value: "v" }]);
    await backingOff;
    await sub.stop();
    await published;

    const got: string[] = [];
    await bus.subscribe({ groupId: "g", topics: ["t"] }, async (m) => void got.push(m.value));
    await bus.publish([{ topic: "t", key: "k", value: "next" }]);
    expect(got).toEqual(["v", "next"]);
    expect(letters).toEqual([]);
    expect(bus.metrics.deadLettered.readings()).toEqual([]);
    await bus.close();
  });

  it("hands dead letters to their own consumers without holding up the failing partition", async () => {
    const bus = createInProcessBus({ wait: async () => undefined, redelivery: { maxAttempts: 1 } });
    let releaseReader!: () => void;
    const readerBlocked = new Promise<void>((r) => (releaseReader = r));
    const letters: DeliveredMessage[] = [];
    await bus.subscribe({ groupId: "reader", topics: ["t.dlq"] }, async (m) => {
      await readerBlocked;
      letters.push(m);
    });
    const seen: string[] = [];
    await bus.subscribe({ groupId: "g", topics: ["t"] }, async (m) => {
      if (m.value === "poison") throw new Error("no");
      seen.push(m.value);
    });
    await bus.publish([
      { topic: "t", key: "k", value: "poison" },
      { topic: "t", key: "k", value: "after" },
    ]);
    expect(seen).toEqual(["after"]);
    releaseReader();
    await bus.close();
  });

  it("writes dead letters that read back as the original message", async () => {
    const bus = createInProcessBus({ wait: async () => undefined, redelivery: { maxAttempts: 2 } });
    const letters: DeliveredMessage[] = [];
    await bus.subscribe({ groupId: "g", topics: [PROJECTS] }, alwaysFails);
    await bus.publish([{ topic: PROJECTS, key: "prj_1", value: '{"id":"evt_1"}', headers: { "ce-type": "project.created" } }]);
    await bus.subscribe({ groupId: "reader", topics: [`${PROJECTS}.dlq`] }, async (m) => void letters.push(m));
    await waitFor(() => letters.length === 1, 3_000);
    expect(readDeadLetter(letters[0] as DeliveredMessage)).toEqual({
      original: { topic: PROJECTS, key: "prj_1", value: '{"id":"evt_1"}', headers: { "ce-type": "project.created" } },
      partition: expect.any(Number),
      offset: "0",
      group: "g",
      attempts: 2,
      error: "always",
    });
    await bus.close();
  });
});
