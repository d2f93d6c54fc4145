import { ManualClock, openEmbeddedStore } from "@earshot/platform";
import { canonicalJson } from "./canonical-json";
import { createCredentialVerifier, type TokenVerifier } from "./credentials";
import { waitFor } from "../../../platform/src/testing/tmp";
import { effectKeyOf, fingerprintOf, IdempotencyStore } from "./idempotency";
import type { Principal } from "./principal";
import { RateLimiter } from "./rate-limit";

const principal = (userId: string): Principal => ({
  userId,
  workspaceId: "wsp_1",
  email: "a@example.com",
  scopes: ["projects:read"],
  credentialId: `key_${userId}`,
  credentialType: "api_key",
  allowances: { projects: 1, keywords: 1, seats: 1, webhookDeliveriesPerDay: 1, linkedinSyncsPerDay: 1 },
});

describe("credential cache", () => {
  const counting = (): TokenVerifier & { calls: number; valid: boolean } => {
    const v = {
      calls: 0,
      valid: true,
      accepts: (t: string) => t.startsWith("svc_sk_"),
      verify: async (t: string) => {
        v.calls += 1;
        if (!v.valid) throw new Error("revoked");
        return principal(t.slice(7));
      },
    };
    return v;
  };

  it("asks the account service once per key per cache period, however many requests arrive", async () => {
    let now = 0;
    const backend = counting();
    const verifier = createCredentialVerifier([backend], { cacheMs: 1000, now: () => now });
    await Promise.all(Array.from({ length: 50 }, () => verifier.verify("svc_sk_u1")));
    expect(backend.calls).toBe(1);
    now = 999;
    await verifier.verify("svc_sk_u1");
    expect(backend.calls).toBe(1);
    now = 1001;
    await verifier.verify("svc_sk_u1");
    expect(backend.calls).toBe(2);
  });

  it("stops trusting a key within the cache period after it became invalid", async () => {
    let now = 0;
    const backend = counting();
    const verifier = createCredentialVerifier([backend], { cacheMs: 1000, now: () => now });
    await verifier.verify("svc_sk_u1");
    backend.valid = false;
    now = 1001;
    await expect(verifier.verify("svc_sk_u1")).rejects.toThrow();
  });

  it("forgets a user's cached keys at once when told", async () => {
    const backend = counting();
    const verifier = createCredentialVerifier([backend], { cacheMs: 1000, now: () => 0 });
    await verifier.verify("svc_sk_u1");
    verifier.forgetUser("u1");
    await verifier.verify("svc_sk_u1");
    expect(backend.calls).toBe(2);
  });

  it("refuses a token no verifier accepts as unauthorized", async () => {
    const verifier = createCredentialVerifier([counting()]);
    await expect(verifier.verify("not-a-key")).rejects.toMatchObject({ code: "unauthorized" });
  });
});

describe("canonical JSON fingerprints", () => {
  it("treats payloads with reordered keys as the same request and different values as different", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
    expect(fingerprintOf("POST", "/p", { a: 1, b: 2 })).toBe(fingerprintOf("POST", "/p", { b: 2, a: 1 }));
    expect(fingerprintOf("POST", "/p", { a: 1 })).not.toBe(fingerprintOf("POST", "/q", { a: 1 }));
    expect(fingerprintOf("POST", "/p", { a: 1 })).not.toBe(fingerprintOf("PATCH", "/p", { a: 1 }));
  });

  it("tells a write's query apart (the same key with another projectId is another request), as text whichever transport", () => {
    expect(fingerprintOf("DELETE", "/p", undefined, { projectId: "prj_1" })).not.toBe(fingerprintOf("DELETE", "/p", undefined, { projectId: "prj_2" }));
    expect(fingerprintOf("DELETE", "/p", undefined, { projectId: "prj_1" })).not.toBe(fingerprintOf("DELETE", "/p", undefined));
    expect(fingerprintOf("DELETE", "/p", undefined, {})).toBe(fingerprintOf("DELETE", "/p", undefined));
    // REST brings query values as text, an MCP call as JSON: the same request either way.
    expect(fingerprintOf("DELETE", "/p", undefined, { limit: 5 })).toBe(fingerprintOf("DELETE", "/p", undefined, { limit: "5" }));
  });
});

describe("idempotency store", () => {
  it("lets another replica take over a key once the lease of the process that died running it lapses", async () => {
    const clock = new ManualClock();
    const shared = await openEmbeddedStore();
    const dead = new IdempotencyStore(shared, clock, { soleOwner: false });
    const other = new IdempotencyStore(shared, clock, { soleOwner: false });
    expect((await dead.begin("usr_1", "key-00001", "fp")).kind).toBe("proceed");
    await expect(other.begin("usr_1", "key-00001", "fp")).rejects.toMatchObject({ code: "idempotency_in_progress" });
    clock.advance(15_001);
    expect((await other.begin("usr_1", "key-00001", "fp")).kind).toBe("proceed");
  });

  it("keeps a running request's key in progress past its first lease while its process renews it", async () => {
    const clock = new ManualClock();
    const shared = await openEmbeddedStore();
    const running = new IdempotencyStore(shared, clock, { soleOwner: false, leaseMs: 300 });
    const other = new IdempotencyStore(shared, clock, { soleOwner: false, leaseMs: 300 });
    const begun = await running.begin("usr_1", "key-00003", "fp");
    if (begun.kind !== "proceed") throw new Error("expected proceed");
    const leaseOf = async () => ((await shared.collection<{ _id: string; leaseUntil: Date }>("idempotency_keys").findById("usr_1:key-00003"))?.leaseUntil ?? new Date(0)).getTime();
    const first = await leaseOf();
    clock.advance(250);
    await waitFor(async () => (await leaseOf()) > first);
    clock.advance(250);
    await expect(other.begin("usr_1", "key-00003", "fp")).rejects.toMatchObject({ code: "idempotency_in_progress" });
    await begun.complete({ status: 201, body: {}, headers: {} });
    expect((await other.begin("usr_1", "key-00003", "fp")).kind).toBe("replay");
  });

  it("takes over at once a key a previous process left in progress on the embedded store, which one process owns", async () => {
    const clock = new ManualClock();
    const shared = await openEmbeddedStore();
    const crashed = new IdempotencyStore(shared, clock);
    const restarted = new IdempotencyStore(shared, clock);
    const a = await crashed.begin("usr_1", "key-00004", "fp");
    await expect(crashed.begin("usr_1", "key-00004", "fp")).rejects.toMatchObject({ code: "idempotency_in_progress" });
    const b = await restarted.begin("usr_1", "key-00004", "fp");
    expect(b.kind).toBe("proceed");
    if (a.kind !== "proceed" || b.kind !== "proceed") throw new Error("expected proceed");
    // The re-run carries the same effect key, so the services answer it with what the first run created.
    expect(b.effectKey).toBe(a.effectKey);
    // The dead run's late answer (were it alive after all) no longer finishes a record it lost.
    await a.complete({ status: 201, body: { data: "stale" }, headers: {} });
    await b.complete({ status: 201, body: { data: "fresh" }, headers: {} });
    expect(await restarted.begin("usr_1", "key-00004", "fp")).toMatchObject({ kind: "replay", response: { body: { data: "fresh" } } });
  });

  it("derives one effect key per owner, key and payload", () => {
    expect(effectKeyOf("usr_1", "key-1", "fp")).toBe(effectKeyOf("usr_1", "key-1", "fp"));
    expect(effectKeyOf("usr_1", "key-1", "fp")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set([effectKeyOf("usr_1", "key-1", "fp"), effectKeyOf("usr_2", "key-1", "fp"), effectKeyOf("usr_1", "key-2", "fp"), effectKeyOf("usr_1", "key-1", "fp2")]).size).toBe(4);
  });

  it("forgets a 5xx so the retry runs again, and keeps answers for 24 hours", async () => {
    const clock = new ManualClock();
    const store = new IdempotencyStore(await openEmbeddedStore(), clock);
    const a = await store.begin("usr_1", "key-00002", "fp");
    if (a.kind !== "proceed") throw new Error("expected proceed");
    await a.complete({ status: 503, body: {}, headers: {} });
    const b = await store.begin("usr_1", "key-00002", "fp");
    if (b.kind !== "proceed") throw new Error("expected proceed");
    await b.complete({ status: 201, body: { data: 1 }, headers: {} });
    expect(await store.begin("usr_1", "key-00002", "fp")).toMatchObject({ kind: "replay", response: { status: 201 } });
    clock.advance(24 * 3600 * 1000 + 1);
    expect((await store.begin("usr_1", "key-00002", "other")).kind).toBe("proceed");
  });
});

describe("rate limiter", () => {
  it("counts per credential and admits again once the window has slid past the requests", async () => {
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const limiter = new RateLimiter(await openEmbeddedStore(), clock, { limit: 2, windowSeconds: 60 });
    expect((await limiter.take("key_a")).allowed).toBe(true);
    const second = await limiter.take("key_a");
    expect(second).toMatchObject({ allowed: true, remaining: 0 });
    // Second 0 counts until all of it has left the window: 61 s.
    expect(second.headers.RateLimit).toBe('"default";r=0;t=61');
    expect((await limiter.take("key_a")).allowed).toBe(false);
    expect((await limiter.take("key_b")).allowed).toBe(true);
    clock.advance(61_000);
    expect((await limiter.take("key_a")).allowed).toBe(true);
  });

  it("keeps counting requests that arrive while a sync is on its way to the store", async () => {
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const limiter = new RateLimiter(await openEmbeddedStore(), clock, { limit: 3, windowSeconds: 60 });
    await limiter.take("key_a");
    await limiter.take("key_a");
    const syncing = limiter.sync();
    expect((await limiter.take("key_a")).remaining).toBe(0);
    await syncing;
    expect((await limiter.take("key_a")).allowed).toBe(false);
  });

  it("shares one budget between gateway replicas through the store", async () => {
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const store = await openEmbeddedStore();
    const a = new RateLimiter(store, clock, { limit: 4, windowSeconds: 60 });
    const b = new RateLimiter(store, clock, { limit: 4, windowSeconds: 60 });
    await a.take("key_a");
    await a.take("key_a");
    await a.sync();
    expect((await b.take("key_a")).remaining).toBe(1);
    await b.sync();
    await a.take("key_a");
    await a.sync();
    expect((await a.take("key_a")).allowed).toBe(false);
  });
});
