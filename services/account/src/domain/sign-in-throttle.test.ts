import { DomainError } from "@earshot/platform/core";
import { newUser, openAccountWorld, PASSWORD, refusalOf } from "../test-support";
import { ADDRESS_POLICY, EMAIL_POLICY, PAIR_POLICY, waitMs } from "./sign-in-throttle";
import { authenticate } from "./users";

const WRONG = "not the password";
const GUESSER = "203.0.113.9";
const OWNER_ADDRESS = "198.51.100.4";

/**
 * A world whose password checks are counted and cost nothing: the throttle is what is tested here (the
 * real scrypt hasher is users.test.ts's).
 */
const countingWorld = async () => {
  let verified = 0;
  const world = await openAccountWorld({
    passwords: {
      hash: async (password) => `plain$${password}`,
      verify: async (password, stored) => {
        verified += 1;
        return stored === `plain$${password}`;
      },
    },
  });
  return { world, verified: () => verified };
};
const openWorld = async () => (await countingWorld()).world;

describe("the schedules", () => {
  it("lets one email from one address fail 5 times, then makes each guess wait 1 s, 2 s, 4 s … up to 15 minutes", () => {
    expect([1, 2, 3, 4].map((f) => waitMs(f, PAIR_POLICY))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8].map((f) => waitMs(f, PAIR_POLICY))).toEqual([1000, 2000, 4000, 8000]);
    expect(waitMs(14, PAIR_POLICY)).toBe(512_000);
    expect(waitMs(15, PAIR_POLICY)).toBe(15 * 60_000);
    expect(waitMs(200, PAIR_POLICY)).toBe(15 * 60_000);
  });

  it("gives a client address 20 free failures across emails", () => {
    expect(waitMs(19, ADDRESS_POLICY)).toBe(0);
    expect(waitMs(20, ADDRESS_POLICY)).toBe(1000);
  });

  it("holds attempts on an email failed 10 times from anywhere for 250 ms, doubling up to 2 s", () => {
    expect(waitMs(9, EMAIL_POLICY)).toBe(0);
    expect([10, 11, 12, 13, 14, 100].map((f) => waitMs(f, EMAIL_POLICY))).toEqual([250, 500, 1000, 2000, 2000, 2000]);
  });
});

describe("guessing one email from one address", () => {
  it("refuses the guesser with rate_limited and retryAfter, and lets the owner in from another address", async () => {
    const world = await openWorld();
    await newUser(world);
    const codes: string[] = [];
    for (let i = 0; i < 100; i++) codes.push((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, GUESSER))).code);
    expect(codes.slice(0, 5)).toEqual(Array(5).fill("unauthorized"));
    expect(new Set(codes.slice(5))).toEqual(new Set(["rate_limited"]));
    const locked = await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD, GUESSER));
    expect(locked).toMatchObject({ code: "rate_limited", details: { retryAfter: 1 }, message: "Too many sign-in attempts. Try again in 1 second." });
    await expect(authenticate(world.deps, "ana@example.com", PASSWORD, OWNER_ADDRESS)).resolves.toMatchObject({ email: "ana@example.com" });
    expect(world.holds).toEqual([]);
  });

  it("makes each further guess wait twice as long once the wait passes, and a success from the pair starts it again", async () => {
    const world = await openWorld();
    await newUser(world);
    for (let i = 0; i < 5; i++) await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, GUESSER));
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const locked = await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, GUESSER));
      waits.push(locked.details.retryAfter as number);
      world.clock.advance((locked.details.retryAfter as number) * 1000 - 1);
      expect((await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD, GUESSER))).code).toBe("rate_limited");
      world.clock.advance(1);
      expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, GUESSER))).code).toBe("unauthorized");
    }
    expect(waits).toEqual([1, 2, 4, 8]);
    world.clock.advance(16_000);
    await authenticate(world.deps, "ana@example.com", PASSWORD, GUESSER);
    for (let i = 0; i < 5; i++) expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, GUESSER))).code).toBe("unauthorized");
    expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, GUESSER))).code).toBe("rate_limited");
  });

  it("refuses an unknown email exactly like a known one", async () => {
    const world = await openWorld();
    for (let i = 0; i < 5; i++) expect((await refusalOf(authenticate(world.deps, "nobody@example.com", WRONG, GUESSER))).code).toBe("unauthorized");
    expect(await refusalOf(authenticate(world.deps, "Nobody@Example.com", WRONG, GUESSER))).toMatchObject({ code: "rate_limited", details: { retryAfter: 1 } });
  });

  it("checks at most the 5 free passwords when 50 wrong ones arrive at once, and refuses the right one among them", async () => {
    const { world, verified } = await countingWorld();
    await newUser(world);
    const attempts = [...Array.from({ length: 50 }, () => WRONG), PASSWORD];
    const results = await Promise.allSettled(attempts.map((p) => authenticate(world.deps, "ana@example.com", p, GUESSER)));
    const codes = results.map((r) => (r.status === "rejected" ? (r.reason as DomainError).code : "signed in"));
    expect(codes.filter((c) => c === "unauthorized")).toHaveLength(5);
    expect(codes.filter((c) => c === "rate_limited")).toHaveLength(46);
    expect(verified()).toBe(5);
    expect(await world.deps.collections.signInFailures.findById(`pair:${GUESSER}/ana@example.com`)).toMatchObject({ failures: 5 });
  });

  it("does not check the password while the pair has to wait", async () => {
    const { world, verified } = await countingWorld();
    await newUser(world);
    for (let i = 0; i < 5; i++) await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, GUESSER));
    const before = verified();
    expect((await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD, GUESSER))).code).toBe("rate_limited");
    expect(verified()).toBe(before);
  });

  it("forgets failures after an hour without one", async () => {
    const world = await openWorld();
    await newUser(world);
    for (let i = 0; i < 4; i++) await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, GUESSER));
    world.clock.advance(3600_000);
    for (let i = 0; i < 4; i++) expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, GUESSER))).code).toBe("unauthorized");
    await authenticate(world.deps, "ana@example.com", PASSWORD, GUESSER);
  });
});

describe("guessing many emails from one address", () => {
  it("refuses an address that tried 20 emails, even for an email it never tried, and a success elsewhere does not clear it", async () => {
    const world = await openWorld();
    await newUser(world);
    for (let i = 0; i < 20; i++) expect((await refusalOf(authenticate(world.deps, `victim${i}@example.com`, WRONG, GUESSER))).code).toBe("unauthorized");
    expect((await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD, GUESSER))).code).toBe("rate_limited");
    await authenticate(world.deps, "ana@example.com", PASSWORD, OWNER_ADDRESS);
    world.clock.advance(1000);
    await authenticate(world.deps, "ana@example.com", PASSWORD, GUESSER);
    expect((await refusalOf(authenticate(world.deps, "victim0@example.com", WRONG, GUESSER))).code).toBe("unauthorized");
    expect((await refusalOf(authenticate(world.deps, "victim1@example.com", WRONG, GUESSER))).details).toEqual({ retryAfter: 2 });
  });

  it("checks at most the address's 20 free passwords when 60 for different emails arrive at once", async () => {
    const { world, verified } = await countingWorld();
    const errors = await Promise.all(Array.from({ length: 60 }, (_, i) => refusalOf(authenticate(world.deps, `victim${i}@example.com`, WRONG, GUESSER))));
    expect(errors.filter((e) => e.code === "unauthorized")).toHaveLength(20);
    expect(errors.filter((e) => e.code === "rate_limited")).toHaveLength(40);
    expect(verified()).toBe(20);
    // A refused attempt leaves nothing behind for its email.
    expect(await world.deps.collections.signInFailures.count({ _id: { $regex: /^email:/ } })).toBe(20);
  });

  it("costs no hash for a flood of 500 refused attempts beyond what the address admits", async () => {
    const { world, verified } = await countingWorld();
    await newUser(world);
    for (let i = 0; i < 500; i++) await refusalOf(authenticate(world.deps, i % 2 ? "ana@example.com" : `victim${i}@example.com`, WRONG, GUESSER));
    expect(verified()).toBe(20);
  });
});

describe("guessing one email from many addresses", () => {
  it("holds every attempt on the email once it failed 10 times, and never refuses the right password from a quiet address", async () => {
    const world = await openWorld();
    await newUser(world);
    for (let a = 0; a < 30; a++) {
      for (let i = 0; i < 5; i++) expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, `192.0.2.${a}`))).code).toBe("unauthorized");
    }
    expect(world.holds.slice(0, 5)).toEqual([250, 500, 1000, 2000, 2000]);
    expect(world.holds).toHaveLength(140);
    world.holds.length = 0;
    await expect(authenticate(world.deps, "ana@example.com", PASSWORD, OWNER_ADDRESS)).resolves.toMatchObject({ email: "ana@example.com" });
    expect(world.holds).toEqual([2000]);
    // Every guessing address is refused outright, before any hold.
    expect((await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD, "192.0.2.7"))).code).toBe("rate_limited");
    expect(world.holds).toEqual([2000]);
  });

  it("keeps holding after the owner signs in (the attack goes on), and stops an hour after the last failure", async () => {
    const world = await openWorld();
    await newUser(world);
    for (let a = 0; a < 3; a++) for (let i = 0; i < 5; i++) await refusalOf(authenticate(world.deps, "ana@example.com", WRONG, `192.0.2.${a}`));
    world.holds.length = 0;
    await authenticate(world.deps, "ana@example.com", PASSWORD, OWNER_ADDRESS);
    await authenticate(world.deps, "ana@example.com", PASSWORD, OWNER_ADDRESS);
    expect(world.holds).toEqual([2000, 2000]);
    world.clock.advance(3600_000);
    await authenticate(world.deps, "ana@example.com", PASSWORD, OWNER_ADDRESS);
    expect(world.holds).toEqual([2000, 2000]);
  });
});
