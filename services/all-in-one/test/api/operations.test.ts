import { OPERATIONS, takesIdempotencyKey } from "@earshot/edge";
import { ALL_SCOPES } from "@earshot/account/scopes";
import { ManualClock } from "@earshot/platform";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { CASES } from "./cases";
import { type Harness, startHarness } from "./harness";
import { buildWorld, type World } from "./world";

// Every catalog operation, over real HTTP against a running all-in-one: success, bad input, missing
// credentials, missing scope, too weak a role, another workspace's resource, idempotent replay and reuse.

let h: Harness;
let w: World;
let sims: RunningSimulators;

beforeAll(async () => {
  // LinkedIn's operations need LinkedIn: its simulator, polled by syncs only (the interval is a day).
  sims = await startSimulators({ platforms: ["linkedin"], generate: false });
  h = await startHarness({ ...sims.settings, EARSHOT_POLL_INTERVAL_SECONDS: "86400" });
  w = await buildWorld(h);
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await sims?.close();
});

const keyOf = (call: { as?: keyof World; key?: string }) => call.key ?? (w[call.as ?? "owner"] as { key: string }).key;
const withoutVolatile = (body: Record<string, unknown>) => ({ ...body, requestId: undefined, instance: undefined, detail: undefined });

it("has a test case for every operation of the catalog", () => {
  expect(Object.keys(CASES).sort()).toEqual(OPERATIONS.map((o) => o.name).sort());
});

describe.each(OPERATIONS.map((op) => [op.name, op] as const))("%s", (name, op) => {
  const c = CASES[name]!;

  it("succeeds with the documented status and a { data, meta } body", async () => {
    const call = await c.happy(h, w);
    const res = await h.call(name, call.input, keyOf(call));
    expect({ status: res.status, body: res.body }).toMatchObject({ status: call.status });
    // A download is the file itself; everything else is { data, meta }.
    if (!op.download) expect(res.body.meta).toMatchObject({ requestId: expect.any(String), apiVersion: "2026-08-24" });
    expect(res.headers.get("earshot-version")).toBe("2026-08-24");
    expect(res.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=60/);
    if (op.list) expect(res.body.meta).toHaveProperty("nextCursor");
    call.check?.(res.body, res);
  });

  it("answers bad input with 400 naming each bad field", async () => {
    const call = await c.bad(h, w);
    if (call.fields.length === 0) return; // takes no input
    const res = await h.call(name, call.input, keyOf(call));
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.body.code).toBe("validation_failed");
    expect((res.body.errors ?? []).map((e) => e.path).sort()).toEqual([...call.fields].sort());
  });

  it("answers 401 with a Bearer challenge when no credentials are sent", async () => {
    const call = await c.bad(h, w);
    const res = await h.call(name, call.input, undefined);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthorized");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("answers 401 for a key that does not exist", async () => {
    const res = await h.call(name, {}, "svc_sk_thisKeyDoesNotExistAtAllxxxxxxxxxxxxxxxxxxx");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it(`answers 403 insufficient_scope to a key without ${op.scope}`, async () => {
    const key = await h.keyFor(w.owner, ALL_SCOPES.filter((s) => s !== op.scope));
    const call = await c.happy(h, w);
    const res = await h.call(name, call.input, key);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "insufficient_scope", scope: op.scope });
    expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="earshot", error="insufficient_scope", scope="${op.scope}"`);
  });

  if (c.tooWeak) {
    it("answers 403 forbidden to a member whose role is not enough", async () => {
      const call = await c.tooWeak!(h, w);
      const res = await h.call(name, call.input, keyOf(call));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("forbidden");
    });
  }

  if (c.foreign) {
    it("answers another workspace's resource exactly as a missing one (404)", async () => {
      const { foreign, missing } = await c.foreign!(h, w);
      const a = await h.call(name, foreign.input, w.owner.key);
      const b = await h.call(name, missing.input, w.owner.key);
      expect(a.status).toBe(404);
      expect(b.status).toBe(404);
      expect(withoutVolatile(a.body)).toEqual(withoutVolatile(b.body));
    });
  }

  if (takesIdempotencyKey(op)) {
    it("replays a retried write with the same Idempotency-Key and refuses the key with another payload", async () => {
      const first = await c.happy(h, w);
      const key = keyOf(first);
      const idem = `idem-${name}-${Math.random().toString(36).slice(2)}`;
      const a = await h.call(name, first.input, key, { idempotencyKey: idem });
      expect(a.status).toBe(first.status);
      const b = await h.call(name, first.input, key, { idempotencyKey: idem });
      if (name === "delete_account") {
        // The deactivated account's credentials stop at once, replays included.
        expect(b.status).toBe(401);
        return;
      }
      expect(b.status).toBe(a.status);
      expect(b.body).toEqual(a.body);
      expect(b.headers.get("idempotent-replayed")).toBe("true");
      const other = await c.bad(h, w);
      const changed = { ...first.input, ...other.input, ...(other.fields.length === 0 ? { name: "something else" } : {}) };
      const d = await h.call(name, changed, key, { idempotencyKey: idem });
      expect(d.status).toBe(409);
      expect(d.body.code).toBe("idempotency_key_reused");
    });

    it("refuses an Idempotency-Key shorter than 8 characters", async () => {
      const call = await c.happy(h, w);
      const res = await h.call(name, call.input, keyOf(call), { idempotencyKey: "short" });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: "Idempotency-Key", message: "must be 8 to 128 characters" }]);
    });
  }
});

describe("rate limits", () => {
  let limited: Harness;
  beforeAll(async () => {
    // A clock held in the middle of a minute keeps each test's four calls in one rate-limit window.
    const midMinute = new Date();
    midMinute.setUTCSeconds(30, 0);
    limited = await startHarness({ EARSHOT_RATE_LIMIT_PER_MINUTE: "3" }, new ManualClock(midMinute));
  }, 60_000);
  afterAll(async () => {
    await limited?.stop();
  });

  it.each(OPERATIONS.map((op) => [op.name] as const))("answers 429 with Retry-After once a credential spends its budget on %s", async (name) => {
    const actor = await limited.newActor();
    for (let i = 0; i < 3; i++) {
      const res = await limited.call(name, {}, actor.key);
      expect(res.status).not.toBe(429);
      expect(res.headers.get("ratelimit")).toBe(`"default";r=${2 - i};t=${res.headers.get("ratelimit")?.split("t=")[1]}`);
    }
    const res = await limited.call(name, {}, actor.key);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("rate_limited");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=3;w=60');
  });
});
