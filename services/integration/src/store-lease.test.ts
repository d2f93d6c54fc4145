import { type Doc, type DocumentStore, ManualClock, openEmbeddedStore } from "@earshot/platform";
import { StoreLease, type LeaseFields } from "./domain/store-lease";

// The lease on the embedded store (the same port the MongoDB adapter implements), on the test's clock.

interface JobDoc extends Doc, LeaseFields {
  note: string;
}

describe("a lease on a store document", () => {
  let store: DocumentStore;
  const clock = new ManualClock("2026-11-28T12:00:00Z");
  beforeEach(async () => {
    store = await openEmbeddedStore();
  });
  afterEach(() => store.close());

  const lease = (owner: string) =>
    new StoreLease<JobDoc>({ collection: store.collection<JobDoc>("jobs"), id: "job", owner, ttlMs: 60_000, now: () => clock.now(), initial: () => ({ note: "fresh" }) });
  const doc = () => store.collection<JobDoc>("jobs").findById("job");

  it("is held by one owner, renewed by it, taken over only once it lapses, and fences the old holder's writes", async () => {
    const [a, b] = [lease("replica-a"), lease("replica-b")];
    expect(await a.hold()).toBe(true);
    expect(await doc()).toMatchObject({ note: "fresh", leaseOwner: "replica-a", leaseUntil: new Date("2026-11-28T12:01:00Z") });
    expect(await b.hold()).toBe(false);

    // Renewed before it lapses: still a's, a minute from the renewal.
    clock.advance(59_000);
    expect(await a.hold()).toBe(true);
    clock.advance(59_000);
    expect(await b.hold()).toBe(false);
    expect((await doc())?.leaseUntil).toEqual(new Date("2026-11-28T12:01:59Z"));

    // a stops renewing: once its lease lapses, b takes over, and a's writes under the lease match nothing.
    clock.advance(1_000);
    expect(await b.hold()).toBe(true);
    expect(await a.hold()).toBe(false);
    const coll = store.collection<JobDoc>("jobs");
    expect((await coll.updateOne(a.heldBy(), { $set: { note: "a's" } })).matchedCount).toBe(0);
    expect((await coll.updateOne(b.heldBy(), { $set: { note: "b's" } })).matchedCount).toBe(1);

    // Released (only by its holder), it is free at once, and what it carries stays.
    await a.release({ note: "not a's to write" });
    expect((await doc())?.leaseOwner).toBe("replica-b");
    await b.release({ note: "left by b" });
    expect(await doc()).toMatchObject({ note: "left by b" });
    expect((await doc())?.leaseOwner).toBeUndefined();
    expect(await a.hold()).toBe(true);
  });

  it("goes to exactly one of several replicas racing for it, free or lapsed", async () => {
    const racers = ["r1", "r2", "r3", "r4"].map(lease);
    expect((await Promise.all(racers.map((r) => r.hold()))).filter(Boolean)).toHaveLength(1);
    clock.advance(60_000);
    expect((await Promise.all(racers.map((r) => r.hold()))).filter(Boolean)).toHaveLength(1);
  });
});
