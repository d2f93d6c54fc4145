import { DomainError } from "@earshot/platform/core";
import { newUser, openAccountWorld, PASSWORD, refusalOf } from "../test-support";
import { ACCOUNT_POLICY, ADDRESS_POLICY, lockMs } from "./sign-in-throttle";
import { authenticate } from "./users";


const WRONG = "not the password";

describe("the lock-out schedule", () => {
  it("allows 5 failures, then locks for 1 s, 2 s, 4 s … doubling up to 15 minutes", () => {
    expect([1, 2, 3, 4].map((f) => lockMs(f, ACCOUNT_POLICY))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8].map((f) => lockMs(f, ACCOUNT_POLICY))).toEqual([1000, 2000, 4000, 8000]);
    expect(lockMs(14, ACCOUNT_POLICY)).toBe(512_000);
    expect(lockMs(15, ACCOUNT_POLICY)).toBe(15 * 60_000);
    expect(lockMs(200, ACCOUNT_POLICY)).toBe(15 * 60_000);
  });

  it("gives a client address more free failures than an account", () => {
    expect(lockMs(19, ADDRESS_POLICY)).toBe(0);
    expect(lockMs(20, ADDRESS_POLICY)).toBe(1000);
  });
});

describe("throttled sign-in", () => {
  it("refuses even the right password while the account is locked, with retryAfter, and lets it in once the lock passes", async () => {
    const world = await openAccountWorld();
    await newUser(world);
    for (let i = 0; i < 5; i++) expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG))).code).toBe("unauthorized");
    const locked = await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD));
    expect(locked).toMatchObject({ code: "rate_limited", details: { retryAfter: 1 }, message: "Too many sign-in attempts. Try again in 1 second." });
    world.clock.advance(999);
    expect((await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD))).code).toBe("rate_limited");
    world.clock.advance(1);
    await expect(authenticate(world.deps, "ana@example.com", PASSWORD)).resolves.toMatchObject({ email: "ana@example.com" });
  });

  it("doubles the lock with each failure after it passes, and a success starts the count again", async () => {
    const world = await openAccountWorld();
    await newUser(world);
    for (let i = 0; i < 5; i++) await refusalOf(authenticate(world.deps, "ana@example.com", WRONG));
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const locked = await refusalOf(authenticate(world.deps, "ana@example.com", WRONG));
      waits.push(locked.details.retryAfter as number);
      world.clock.advance((locked.details.retryAfter as number) * 1000);
      expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG))).code).toBe("unauthorized");
    }
    expect(waits).toEqual([1, 2, 4, 8]);
    world.clock.advance(16_000);
    await authenticate(world.deps, "ana@example.com", PASSWORD);
    for (let i = 0; i < 5; i++) expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG))).code).toBe("unauthorized");
    expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG))).code).toBe("rate_limited");
  });

  it("locks an unknown email exactly like a known one, so the lock-out tells nothing", async () => {
    const world = await openAccountWorld();
    for (let i = 0; i < 5; i++) expect((await refusalOf(authenticate(world.deps, "nobody@example.com", WRONG))).code).toBe("unauthorized");
    expect(await refusalOf(authenticate(world.deps, "Nobody@Example.com", WRONG))).toMatchObject({ code: "rate_limited", details: { retryAfter: 1 } });
  });

  it("locks a client address that tries many accounts, and a success elsewhere does not clear it", async () => {
    const world = await openAccountWorld();
    await newUser(world);
    const from = "203.0.113.9";
    for (let i = 0; i < 20; i++) expect((await refusalOf(authenticate(world.deps, `victim${i}@example.com`, WRONG, from))).code).toBe("unauthorized");
    expect((await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD, from))).code).toBe("rate_limited");
    // Another address is not affected.
    await authenticate(world.deps, "ana@example.com", PASSWORD, "198.51.100.4");
    world.clock.advance(1000);
    await authenticate(world.deps, "ana@example.com", PASSWORD, from);
    expect((await refusalOf(authenticate(world.deps, "victim0@example.com", WRONG, from))).code).toBe("unauthorized");
    expect((await refusalOf(authenticate(world.deps, "victim1@example.com", WRONG, from))).details).toEqual({ retryAfter: 2 });
  });

  it("checks the password of at most the 5 free attempts when 50 wrong ones for one account arrive at once", async () => {
    const world = await openAccountWorld();
    await newUser(world);
    const lookups = jest.spyOn(world.deps.collections.users, "findOne");
    const errors = await Promise.all(Array.from({ length: 50 }, () => refusalOf(authenticate(world.deps, "ana@example.com", WRONG))));
    expect(errors.filter((e) => e.code === "unauthorized")).toHaveLength(5);
    expect(errors.filter((e) => e.code === "rate_limited")).toHaveLength(45);
    expect(lookups).toHaveBeenCalledTimes(5);
    expect(await world.deps.collections.signInFailures.findById("account:ana@example.com")).toMatchObject({ failures: 5 });
  });

  it("refuses the right password arriving among concurrent wrong ones once the free attempts are taken", async () => {
    const world = await openAccountWorld();
    await newUser(world);
    const attempts = [...Array.from({ length: 5 }, () => WRONG), PASSWORD];
    const results = await Promise.allSettled(attempts.map((p) => authenticate(world.deps, "ana@example.com", p)));
    expect(results.slice(0, 5).map((r) => r.status === "rejected" && (r.reason as DomainError).code)).toEqual(Array(5).fill("unauthorized"));
    expect(results[5]).toMatchObject({ status: "rejected", reason: { code: "rate_limited" } });
  });

  it("checks at most an address's 20 free attempts when 60 for different accounts arrive at once", async () => {
    const world = await openAccountWorld();
    const errors = await Promise.all(Array.from({ length: 60 }, (_, i) => refusalOf(authenticate(world.deps, `victim${i}@example.com`, WRONG, "203.0.113.9"))));
    expect(errors.filter((e) => e.code === "unauthorized")).toHaveLength(20);
    expect(await world.deps.collections.signInFailures.count({ _id: { $regex: /^account:/ } })).toBe(20);
  });

  it("forgets failures after an hour without one", async () => {
    const world = await openAccountWorld();
    await newUser(world);
    for (let i = 0; i < 4; i++) await refusalOf(authenticate(world.deps, "ana@example.com", WRONG));
    world.clock.advance(3600_000);
    for (let i = 0; i < 4; i++) expect((await refusalOf(authenticate(world.deps, "ana@example.com", WRONG))).code).toBe("unauthorized");
    await authenticate(world.deps, "ana@example.com", PASSWORD);
  });

  it("does not check the password while locked", async () => {
    const world = await openAccountWorld();
    await newUser(world);
    for (let i = 0; i < 5; i++) await refusalOf(authenticate(world.deps, "ana@example.com", WRONG));
    const findOne = jest.spyOn(world.deps.collections.users, "findOne");
    expect((await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD))).code).toBe("rate_limited");
    expect(findOne).not.toHaveBeenCalled();
  });
});
