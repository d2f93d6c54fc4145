import fc from "fast-check";
import { type IntegrationWorld, openIntegrationWorld } from "../test-support";

// The shared daily budgets: replicas spend one budget between them, and Google's day (midnight Pacific)
// starts afresh.

let world: IntegrationWorld;

beforeEach(async () => {
  world = await openIntegrationWorld({ platforms: ["youtube"], settings: { EARSHOT_YOUTUBE_DAILY_QUOTA: "1000" } });
  world.clock.set("2026-11-23T22:00:00.000Z");
});
afterEach(async () => {
  await world.close();
});

describe("quota ledger", () => {
  it("never grants two replicas taking at once more than the day's budget", async () => {
    const replicas = [world.deps.quota, world.replica().quota];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 4, maxLength: 24 }), async (units) => {
        await world.deps.collections.quotas.deleteMany({});
        const now = world.clock.now();
        const results = await Promise.all(units.map((u, i) => replicas[i % 2]!.take("youtube", u, now).then((r) => ({ ...r, units: u }))));
        const granted = results.filter((r) => r.granted).reduce((n, r) => n + r.units, 0);
        expect(granted).toBeLessThanOrEqual(1000);
        expect((await replicas[0]!.left("youtube", now)).left).toBe(1000 - granted);
        // A refusal only when what was asked did not fit in what was left.
        for (const r of results) if (!r.granted) expect(r.units).toBeGreaterThan(r.left);
      }),
      { seed: 20261123, numRuns: 15 },
    );
  });

  it("grants exactly the budget to many takes of 100 units from two replicas", async () => {
    const replicas = [world.deps.quota, world.replica().quota];
    const now = world.clock.now();
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => replicas[i % 2]!.take("youtube", 100, now)));
    expect(results.filter((r) => r.granted)).toHaveLength(10);
    expect(await world.deps.quota.left("youtube", now)).toEqual({ left: 0, resetAt: new Date("2026-11-24T08:00:00.000Z") });
  });

  it("grants every take that fits when three replicas take at once, never failing one for contention", async () => {
    const replicas = [world.deps.quota, world.replica().quota, world.replica().quota];
    const now = world.clock.now();
    const outcomes = await Promise.allSettled(Array.from({ length: 90 }, (_, i) => replicas[i % 3]!.take("youtube", 10, now)));
    expect(outcomes.filter((o) => o.status === "rejected")).toEqual([]);
    expect(outcomes.every((o) => o.status === "fulfilled" && o.value.granted)).toBe(true);
    expect((await world.deps.quota.left("youtube", now)).left).toBe(100);
  });

  it("starts a new budget at midnight Pacific, when Google resets the key, not at UTC midnight", async () => {
    // 22:00 UTC on 23 November is 14:00 in Los Angeles (PST, UTC-8): Google's day ends at 08:00 UTC.
    expect((await world.deps.quota.take("youtube", 1000, world.clock.now())).granted).toBe(true);
    expect(await world.deps.collections.quotas.findById("youtube:2026-11-23")).toMatchObject({ used: 1000 });
    world.clock.set("2026-11-24T00:00:00.000Z");
    expect(await world.deps.quota.take("youtube", 1, world.clock.now())).toEqual({ granted: false, left: 0, resetAt: new Date("2026-11-24T08:00:00.000Z") });
    world.clock.set("2026-11-24T07:59:59.000Z");
    expect((await world.deps.quota.left("youtube", world.clock.now())).left).toBe(0);
    world.clock.set("2026-11-24T08:00:00.000Z");
    expect(await world.deps.quota.take("youtube", 100, world.clock.now())).toEqual({ granted: true, left: 900, resetAt: new Date("2026-11-25T08:00:00.000Z") });
  });

  it("keys the budget by the Pacific date across daylight saving time", async () => {
    // 1 July 06:59:59 UTC is 23:59:59 on 30 June in Los Angeles (PDT, UTC-7).
    world.clock.set("2026-07-01T06:59:59.000Z");
    await world.deps.quota.take("youtube", 300, world.clock.now());
    world.clock.set("2026-07-01T07:00:00.000Z");
    await world.deps.quota.take("youtube", 200, world.clock.now());
    const days = (await world.deps.collections.quotas.find({}, { sort: { _id: 1 } })).map((d) => [d._id, d.used]);
    expect(days).toEqual([
      ["youtube:2026-06-30", 300],
      ["youtube:2026-07-01", 200],
    ]);
  });
});
