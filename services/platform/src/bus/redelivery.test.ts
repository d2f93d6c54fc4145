import { topicForDomain } from "../events/cloud-event";
import { LabeledCounter } from "./metrics";
import { backoffDelay, DEFAULT_REDELIVERY, deadLetterTopic, errorMessage, readDeadLetter, resolveRedelivery, toDeadLetter } from "./redelivery";

describe("redelivery policy", () => {
  it("defaults to 5 attempts with backoff doubling from 100 ms up to 3 s", () => {
    expect(resolveRedelivery()).toEqual({ maxAttempts: 5, initialBackoffMs: 100, maxBackoffMs: 3_000 });
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => backoffDelay(DEFAULT_REDELIVERY, a))).toEqual([100, 200, 400, 800, 1600, 3000, 3000]);
  });

  it("takes later layers over earlier ones, ignoring fields left undefined", () => {
    expect(resolveRedelivery({ maxAttempts: 3, maxBackoffMs: 50 }, { maxAttempts: undefined, initialBackoffMs: 7 })).toEqual({
      maxAttempts: 3,
      initialBackoffMs: 7,
      maxBackoffMs: 50,
    });
  });

  it("names the dead-letter topic after the source topic", () => {
    expect(deadLetterTopic(topicForDomain("project"))).toBe(`${topicForDomain("project")}.dlq`);
  });

  it("keeps a dead letter's error short whatever the handler threw", () => {
    expect(errorMessage(new Error("x".repeat(5_000)))).toHaveLength(1_000);
    expect(errorMessage("plain string")).toBe("plain string");
    expect(errorMessage(new TypeError(""))).toBe("TypeError");
  });

  it("reads back a dead letter as the original message, and nothing else as one", () => {
    const letter = toDeadLetter({ topic: "t", key: "k", value: "v", headers: { a: "1" }, partition: 2, offset: "41" }, "g", 5, new Error("boom"));
    expect(readDeadLetter(letter)).toEqual({
      original: { topic: "t", key: "k", value: "v", headers: { a: "1" } },
      partition: 2,
      offset: "41",
      group: "g",
      attempts: 5,
      error: "boom",
    });
    expect(readDeadLetter({ topic: "t.dlq", key: "k", value: "v", headers: { a: "1" } })).toBeNull();
  });
});

describe("labeled counter", () => {
  it("counts per label set whatever the order of the labels", () => {
    const c = new LabeledCounter("c_total", "help");
    c.inc({ topic: "t", group: "g" });
    c.inc({ group: "g", topic: "t" });
    c.inc({ topic: "u", group: "g" }, 3);
    expect(c.value({ topic: "t", group: "g" })).toBe(2);
    expect(c.value({ topic: "none", group: "g" })).toBe(0);
    expect(c.readings()).toEqual([
      { labels: { topic: "t", group: "g" }, value: 2 },
      { labels: { topic: "u", group: "g" }, value: 3 },
    ]);
  });
});
