import { KafkaJSError, KafkaJSNonRetriableError, KafkaJSProtocolError } from "kafkajs";
import { toKafkaJsError } from "./kafka-errors";

describe("errors handed back to kafkajs", () => {
  it("hands a rebalance reported by heartbeat() back unchanged, type and all, so kafkajs rejoins the group", () => {
    // As kafkajs builds it from the broker's error code 27 (its constructor takes the code's description).
    const code27 = { message: "The group is rebalancing, so a rejoin is needed", type: "REBALANCE_IN_PROGRESS", code: 27, retriable: false };
    const rebalance = new KafkaJSProtocolError(code27 as unknown as Error);
    const out = toKafkaJsError(rebalance);
    expect(out).toBe(rebalance);
    expect((out as KafkaJSProtocolError).type).toBe("REBALANCE_IN_PROGRESS");
  });

  it("hands any other kafkajs error back unchanged, retriable or not", () => {
    const nonRetriable = new KafkaJSNonRetriableError("fatal");
    const retriable = new KafkaJSError("try again", { retriable: true });
    expect(toKafkaJsError(nonRetriable)).toBe(nonRetriable);
    expect(toKafkaJsError(retriable)).toBe(retriable);
  });

  it("wraps a TypeError (which kafkajs would treat as fatal) in a retriable kafkajs error keeping the cause", () => {
    const cause = new TypeError("cannot read properties of undefined");
    const out = toKafkaJsError(cause);
    expect(out).toBeInstanceOf(KafkaJSError);
    expect(out.retriable).toBe(true);
    expect(out.message).toBe("cannot read properties of undefined");
    expect((out as unknown as { cause: unknown }).cause).toBe(cause);
    expect(toKafkaJsError("a string").retriable).toBe(true);
  });
});
