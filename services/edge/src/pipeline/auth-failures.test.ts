import { DomainError, ManualClock, openEmbeddedStore, silentLogger } from "@earshot/platform";
import type { CredentialVerifier } from "./credentials";
import { createPipeline } from "./execute";
import type { IdempotencyStore } from "./idempotency";
import { RateLimiter } from "./rate-limit";

// The failed-authentication budget per address holds against concurrent guesses and against an IPv6
// client rotating through its /64.

const START = Date.parse("2026-01-01T00:00:00.000Z");

/** A verifier that refuses every key, counts the calls it got, and answers only when released. */
const refusingVerifier = () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const v: CredentialVerifier & { calls: number; release: () => void } = {
    calls: 0,
    release: () => release(),
    forgetUser: () => undefined,
    verify: async () => {
      v.calls += 1;
      await released;
      throw new DomainError("unauthorized", "bad key");
    },
  };
  return v;
};

const pipelineWith = async (verifier: CredentialVerifier, budget: number) => {
  const clock = new ManualClock(new Date(START));
  const store = await openEmbeddedStore();
  return createPipeline({
    backends: {} as never,
    verifier,
    rateLimiter: new RateLimiter(store, clock, { limit: 100, windowSeconds: 60 }),
    authFailureLimiter: new RateLimiter(store, clock, { limit: budget, windowSeconds: 60 }),
    idempotency: {} as IdempotencyStore,
    memberships: { forUser: async () => [], grant: () => undefined },
    clock,
    logger: silentLogger(),
    publicUrl: "http://localhost",
  });
};

const codeOf = (p: Promise<unknown>) => p.then(() => "ok", (err: { code?: string }) => err.code);

describe("failed-authentication limit per address", () => {
  it("lets at most the budget of concurrent bad keys from one address reach the verifier", async () => {
    const verifier = refusingVerifier();
    const pipeline = await pipelineWith(verifier, 5);
    // Each attempt either reaches the verifier (which holds it) or is refused at the gate; once all 50
    // have done one or the other, the verifier answers.
    let refused = 0;
    let gated!: () => void;
    const allGated = new Promise<void>((resolve) => (gated = resolve));
    const settle = () => verifier.calls + refused === 50 && gated();
    const inner = verifier.verify.bind(verifier);
    verifier.verify = (t) => {
      const p = inner(t);
      settle();
      return p;
    };
    const attempts = Array.from({ length: 50 }, (_, i) =>
      codeOf(pipeline.authenticate(`Bearer svc_sk_guess${i}`, "198.51.100.7")).then((code) => {
        if (code === "rate_limited") {
          refused += 1;
          settle();
        }
        return code;
      }),
    );
    await allGated;
    verifier.release();
    const codes = await Promise.all(attempts);
    expect(verifier.calls).toBe(5);
    expect(codes.filter((c) => c === "rate_limited")).toHaveLength(45);
    expect(codes.filter((c) => c === "unauthorized")).toHaveLength(5);
    expect(await codeOf(pipeline.authenticate("Bearer svc_sk_late", "198.51.100.7"))).toBe("rate_limited");
  });

  it("shares one budget between the addresses of an IPv6 /64 and between an IPv4 client and its mapped form", async () => {
    const verifier = refusingVerifier();
    verifier.release();
    const pipeline = await pipelineWith(verifier, 2);
    expect(await codeOf(pipeline.authenticate("Bearer svc_sk_a", "2001:db8:5:6::1"))).toBe("unauthorized");
    expect(await codeOf(pipeline.authenticate("Bearer svc_sk_b", "2001:db8:5:6:abcd::9"))).toBe("unauthorized");
    expect(await codeOf(pipeline.authenticate("Bearer svc_sk_c", "2001:db8:5:6:1:2:3:4"))).toBe("rate_limited");
    expect(await codeOf(pipeline.authenticate("Bearer svc_sk_d", "203.0.113.20"))).toBe("unauthorized");
    expect(await codeOf(pipeline.authenticate("Bearer svc_sk_e", "::ffff:203.0.113.20"))).toBe("unauthorized");
    expect(await codeOf(pipeline.authenticate("Bearer svc_sk_f", "203.0.113.20"))).toBe("rate_limited");
    expect(verifier.calls).toBe(4);
  });
});
