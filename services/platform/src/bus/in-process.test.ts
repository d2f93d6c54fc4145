import { describeBusContract } from "./contract";
import { createInProcessBus } from "./in-process";

let n = 0;
describeBusContract(
  "in-process",
  async () => ({
    bus: createInProcessBus({ retryBackoffMs: 10 }),
    topic: (name) => `test.${name}.${++n}`,
    cleanup: async () => undefined,
  }),
  3_000,
);

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

  it("replays retained messages to a group that subscribes later from the beginning", async () => {
    const bus = createInProcessBus();
    await bus.publish([{ topic: "t", key: "k", value: "early" }]);
    const got: string[] = [];
    await bus.subscribe({ groupId: "late", topics: ["t"] }, async (m) => void got.push(m.value));
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual(["early"]);
    const fresh: string[] = [];
    await bus.subscribe({ groupId: "latest-only", topics: ["t"], fromBeginning: false }, async (m) => void fresh.push(m.value));
    await bus.publish([{ topic: "t", key: "k", value: "next" }]);
    expect(fresh).toEqual(["next"]);
    await bus.close();
  });

  it("skips a message that keeps failing after the attempt limit, so the partition moves on", async () => {
    const bus = createInProcessBus({ retryBackoffMs: 1, maxAttempts: 3 });
    const seen: string[] = [];
    let attempts = 0;
    await bus.subscribe({ groupId: "g", topics: ["t"] }, async (m) => {
      if (m.value === "poison") {
        attempts += 1;
        throw new Error("always");
      }
      seen.push(m.value);
    });
    await bus.publish([
      { topic: "t", key: "k", value: "poison" },
      { topic: "t", key: "k", value: "after" },
    ]);
    expect(attempts).toBe(3);
    expect(seen).toEqual(["after"]);
    await bus.close();
  });
});
