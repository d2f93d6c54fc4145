import { DomainError, unavailable } from "../errors";
import { ReplicaSetRequiredError, UniqueViolationError, VersionConflictError } from "../store/port";
import { isTransient } from "./transient";

const named = (name: string, message = "x") => Object.assign(new Error(message), { name });

describe("transient failures", () => {
  it("counts outages as transient: unavailable, lost store or peer, no replica set, version conflicts", () => {
    const transient = [
      unavailable(),
      named("MongoNetworkError"),
      named("MongoServerSelectionError"),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:27017"), { code: "ECONNREFUSED" }),
      new ReplicaSetRequiredError("no replica set"),
      new VersionConflictError("items", "x"),
      Object.assign(new Error("write failed"), { hasErrorLabel: (l: string) => l === "RetryableWriteError" }),
      new Error("handler failed", { cause: named("MongoNetworkTimeoutError") }),
    ];
    expect(transient.map(isTransient)).toEqual(transient.map(() => true));
  });

  it("counts the message's own failures as permanent", () => {
    const permanent = [
      new Error("bad payload"),
      new DomainError("validation_failed", "bad"),
      new DomainError("not_found", "gone"),
      new UniqueViolationError("items", "x"),
      new SyntaxError("Unexpected token"),
      "a string",
      undefined,
      null,
      named("MongoServerError"),
    ];
    expect(permanent.map(isTransient)).toEqual(permanent.map(() => false));
  });

  it("stops at a cause chain that loops", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(isTransient(a)).toBe(false);
  });
});
