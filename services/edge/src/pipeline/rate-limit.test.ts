import { ManualClock, openEmbeddedStore } from "@earshot/platform";
import fc from "fast-check";
import { RateLimiter } from "./rate-limit";

// The window slides: whatever the timing of requests, no 60 s span admits more than the limit, the
// minute boundary included (a fixed window admitted twice the limit across it).

const START = Date.parse("2026-01-01T00:00:00.000Z");

/** The most admissions found in any closed span of `spanMs`. */
const busiestSpan = (times: number[], spanMs: number): number => {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) > spanMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
};

const admittedAt = async (limiter: RateLimiter, clock: ManualClock, offsets: number[]): Promise<number[]> => {
  const admitted: number[] = [];
  for (const at of offsets) {
    clock.set(new Date(START + at));
    if ((await limiter.take("key_a")).allowed) admitted.push(at);
  }
  return admitted;
};

describe("sliding-window rate limiter", () => {
  it("admits at most the limit within any 60 s span across a minute boundary", async () => {
    const clock = new ManualClock(new Date(START));
    const limiter = new RateLimiter(await openEmbeddedStore(), clock, { limit: 600, windowSeconds: 60 });
    // 600 requests in the last second of a minute, then 600 in each of the next seconds until 3 s in.
    const burst = (from: number) => Array.from({ length: 600 }, (_, i) => from + i);
    const admitted = await admittedAt(limiter, clock, [...burst(59_000), ...burst(60_000), ...burst(61_000), ...burst(62_000)]);
    expect(admitted).toHaveLength(600);
    expect(busiestSpan(admitted, 60_000)).toBeLessThanOrEqual(600);
    // The budget comes back as the burst ages out of the window, not at the next minute.
    clock.set(new Date(START + 119_999));
    expect((await limiter.take("key_a")).allowed).toBe(false);
    clock.set(new Date(START + 120_000));
    expect((await limiter.take("key_a")).allowed).toBe(true);
  });

  it("never admits more than the limit in any 60 s span, whatever the request times", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 240_000 }), { minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 20 }), async (raw, limit) => {
        const clock = new ManualClock(new Date(START));
        const limiter = new RateLimiter(await openEmbeddedStore(), clock, { limit, windowSeconds: 60 });
        const admitted = await admittedAt(limiter, clock, [...raw].sort((a, b) => a - b));
        expect(busiestSpan(admitted, 60_000)).toBeLessThanOrEqual(limit);
      }),
      { seed: 20260824, numRuns: 60 },
    );
  });

  it("does not count refused requests, and tells when the next one will be admitted", async () => {
    const clock = new ManualClock(new Date(START));
    const limiter = new RateLimiter(await openEmbeddedStore(), clock, { limit: 2, windowSeconds: 60 });
    await limiter.take("key_a");
    clock.advance(10_000);
    await limiter.take("key_a");
    for (let i = 0; i < 50; i++) expect((await limiter.take("key_a")).allowed).toBe(false);
    const refused = await limiter.take("key_a");
    // The first admitted request (second 0) leaves the window after second 60.
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 51 });
    clock.set(new Date(START + 61_000));
    expect(await limiter.take("key_a")).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("peeks without counting", async () => {
    const clock = new ManualClock(new Date(START));
    const limiter = new RateLimiter(await openEmbeddedStore(), clock, { limit: 1, windowSeconds: 60 });
    for (let i = 0; i < 5; i++) expect((await limiter.peek("address:203.0.113.9")).allowed).toBe(true);
    await limiter.take("address:203.0.113.9");
    expect((await limiter.peek("address:203.0.113.9")).allowed).toBe(false);
  });

  it("learns another replica's requests from the store when it first sees a key", async () => {
    const clock = new ManualClock(new Date(START));
    const store = await openEmbeddedStore();
    const a = new RateLimiter(store, clock, { limit: 3, windowSeconds: 60 });
    await a.take("key_a");
    clock.advance(59_000);
    await a.take("key_a");
    await a.sync();
    clock.advance(1_500);
    const b = new RateLimiter(store, clock, { limit: 3, windowSeconds: 60 });
    expect(await b.take("key_a")).toMatchObject({ allowed: true, remaining: 0 });
    expect((await b.take("key_a")).allowed).toBe(false);
  });

  it("learns at a sync what another replica counted in buckets it never wrote itself", async () => {
    const clock = new ManualClock(new Date(START));
    const store = await openEmbeddedStore();
    const a = new RateLimiter(store, clock, { limit: 100, windowSeconds: 60 });
    const b = new RateLimiter(store, clock, { limit: 100, windowSeconds: 60 });
    expect((await a.take("key_a")).allowed).toBe(true);
    await a.sync();
    clock.advance(1_000);
    for (let i = 0; i < 99; i++) expect((await b.take("key_a")).allowed).toBe(true);
    await b.sync();
    await a.sync();
    expect(await a.peek("key_a")).toMatchObject({ allowed: false, remaining: 0 });
    expect((await a.take("key_a")).allowed).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });

  it("charges a batch its cost and refuses a batch larger than what is left", async () => {
    const clock = new ManualClock(new Date(START));
    const limiter = new RateLimiter(await openEmbeddedStore(), clock, { limit: 10, windowSeconds: 60 });
    expect(await limiter.take("key_a", 7)).toMatchObject({ allowed: true, remaining: 3 });
    expect(await limiter.take("key_a", 4)).toMatchObject({ allowed: false, remaining: 3 });
    expect(await limiter.take("key_a", 3)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.take("key_a")).allowed).toBe(false);
    await limiter.close();
  });

  it("keeps no entry for a key that was only peeked, and at most maxKeys entries", async () => {
    const clock = new ManualClock(new Date(START));
    const limiter = new RateLimiter(await openEmbeddedStore(), clock, { limit: 5, windowSeconds: 60 }, { maxKeys: 10 });
    for (let i = 0; i < 30; i++) await limiter.peek(`address:198.51.100.${i}`);
    expect(limiter.size).toBeLessThanOrEqual(10);
    await limiter.sync();
    expect(limiter.size).toBe(0);
    for (let i = 0; i < 30; i++) await limiter.take(`address:198.51.100.${i}`);
    await limiter.sync();
    for (let i = 30; i < 60; i++) await limiter.peek(`address:198.51.100.${i}`);
    expect(limiter.size).toBeLessThanOrEqual(10);
    // An evicted key's count comes back from the store.
    await limiter.take("address:198.51.100.0", 4);
    expect((await limiter.take("address:198.51.100.0")).allowed).toBe(false);
    await limiter.close();
  });
});
