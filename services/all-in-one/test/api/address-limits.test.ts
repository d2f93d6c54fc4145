import { type Harness, startHarness } from "./harness";

// Limits per client address hold against a client naming its own address: by default no proxy is
// trusted, so X-Forwarded-For from the (loopback) peer changes nothing. Invalid credentials are limited
// per address before authentication, so guessing keys stops after a few tries, on every surface.

const BUDGET = 3;

const restWithKey = (h: Harness, key: string, forwardedFor?: string) =>
  fetch(`${h.url}/api/v1/projects`, { headers: { Authorization: `Bearer ${key}`, ...(forwardedFor ? { "X-Forwarded-For": forwardedFor } : {}) } });

const register = (h: Harness, forwardedFor: string) =>
  fetch(`${h.url}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": forwardedFor },
    body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:9/callback"], client_name: "probe", token_endpoint_auth_method: "none" }),
  });

describe("with the default proxy setting", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ EARSHOT_AUTH_FAILURES_PER_MINUTE: String(BUDGET), EARSHOT_OAUTH_RATE_LIMIT_PER_MINUTE: String(BUDGET) });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("answers 429 with Retry-After once an address spends its failed authentications, even for a valid key, whatever X-Forwarded-For says", async () => {
    const valid = (await h.newActor()).key;
    for (let i = 0; i < BUDGET; i++) {
      const res = await restWithKey(h, `svc_sk_guess${i}`, `198.51.100.${i}`);
      expect(res.status).toBe(401);
    }
    const refused = await restWithKey(h, "svc_sk_guess-next", "198.51.100.200");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: "rate_limited" });
    // Refused before any verification: a valid key from the same address waits too.
    expect((await restWithKey(h, valid)).status).toBe(429);
  });

  it("limits an OAuth endpoint per peer address, not per X-Forwarded-For", async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= BUDGET; i++) statuses.push((await register(h, `203.0.113.${i}`)).status);
    expect(statuses).toEqual([...Array(BUDGET).fill(201), 429]);
  });
});

describe("behind a proxy the operator names", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ EARSHOT_TRUST_PROXY: "loopback", EARSHOT_AUTH_FAILURES_PER_MINUTE: String(BUDGET) });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("counts failed authentications per forwarded client address", async () => {
    for (let i = 0; i < BUDGET; i++) expect((await restWithKey(h, `svc_sk_guess${i}`, "198.51.100.1")).status).toBe(401);
    expect((await restWithKey(h, "svc_sk_guess-next", "198.51.100.1")).status).toBe(429);
    // Another client behind the same proxy keeps its own budget.
    expect((await restWithKey(h, "svc_sk_guess-other", "198.51.100.2")).status).toBe(401);
  });
});
