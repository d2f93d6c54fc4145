import { DomainError } from "../errors";
import { openEmbeddedStore } from "../store/embedded";
import { VersionConflictError } from "../store/port";
import { withVersionRetry } from "./retry";

const conflictAfter = (losses: number) => {
  const seen: number[] = [];
  const run = async (attempt: number): Promise<string> => {
    seen.push(attempt);
    if (attempt <= losses) throw new VersionConflictError("things", "t1");
    return `won on ${attempt}`;
  };
  return { run, seen };
};

describe("withVersionRetry", () => {
  it("runs again after a lost version race, telling the verb which attempt it is", async () => {
    const { run, seen } = conflictAfter(2);
    await expect(withVersionRetry(run)).resolves.toBe("won on 3");
    expect(seen).toEqual([1, 2, 3]);
  });

  it("answers conflict, with the lost race as cause, once every attempt lost", async () => {
    const { run, seen } = conflictAfter(Number.POSITIVE_INFINITY);
    const err: unknown = await withVersionRetry(run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe("conflict");
    expect((err as DomainError).message).toBe("The data changed while this request ran; try again.");
    expect((err as DomainError).cause).toBeInstanceOf(VersionConflictError);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it("takes the number of attempts and the conflict message as options", async () => {
    const { run, seen } = conflictAfter(Number.POSITIVE_INFINITY);
    await expect(withVersionRetry(run, { attempts: 2, conflictMessage: "The record kept changing." })).rejects.toMatchObject({
      code: "conflict",
      message: "The record kept changing.",
    });
    expect(seen).toEqual([1, 2]);
  });

  it("does not run again after any other failure", async () => {
    let runs = 0;
    const refused = new DomainError("not_found", "Thing was not found.");
    await expect(
      withVersionRetry(async () => {
        runs++;
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(runs).toBe(1);
  });

  it("lets two racing read-modify-writes of one document both land", async () => {
    const store = await openEmbeddedStore();
    try {
      interface Counter {
        _id: string;
        _v?: number;
        n: number;
      }
      const counters = store.collection<Counter>("counters");
      await counters.insertOne({ _id: "c", n: 0 });
      // Both read before either writes, so exactly one loses the first round and must read again.
      let reads = 0;
      let release!: () => void;
      const bothRead = new Promise<void>((resolve) => (release = resolve));
      const increment = () =>
        withVersionRetry(async (attempt) => {
          const doc = (await counters.findById("c")) as Counter;
          if (attempt === 1 && ++reads === 2) release();
          if (attempt === 1) await bothRead;
          const next: Counter = { ...doc, n: doc.n + 1 };
          await store.commit([{ kind: "replace", collection: "counters", doc: next, expectedVersion: doc._v ?? 1 }]);
          return attempt;
        });
      const attempts = await Promise.all([increment(), increment()]);
      expect([...attempts].sort()).toEqual([1, 2]);
      expect((await counters.findById("c"))?.n).toBe(2);
    } finally {
      await store.close();
    }
  });
});
