import { ManualClock, openEmbeddedStore, silentLogger } from "@earshot/platform";
import { serviceAddresses } from "@earshot/registry";
import { connectBackends } from "../backends";
import { OPERATIONS } from "../catalog";
import { createCredentialVerifier } from "./credentials";
import { createPipeline } from "./execute";
import { IdempotencyStore } from "./idempotency";
import { MembershipCache } from "./memberships";
import { RateLimiter } from "./rate-limit";

// An operation whose answer carries a secret says so in the catalog, and the pipeline marks every one of
// its answers (successes, replays and problems alike) uncacheable for whichever transport writes it.

const op = (name: string) => {
  const found = OPERATIONS.find((o) => o.name === name);
  if (!found) throw new Error(`no operation ${name}`);
  return found;
};

describe("sensitive operations", () => {
  it("marks create_api_key's answers Cache-Control: no-store and leaves other operations' alone", async () => {
    const clock = new ManualClock();
    const store = await openEmbeddedStore();
    const backends = connectBackends(serviceAddresses(() => "127.0.0.1:1"));
    const rateLimiter = new RateLimiter(store, clock, { limit: 10, windowSeconds: 60 });
    try {
      const pipeline = createPipeline({
        backends,
        verifier: createCredentialVerifier([]),
        rateLimiter,
        idempotency: new IdempotencyStore(store, clock),
        memberships: new MembershipCache({ load: async () => [], maxAgeMs: 1000 }),
        clock,
        logger: silentLogger(),
        publicUrl: "http://localhost",
      });
      const request = { requestId: "req_1", authorization: undefined, idempotencyKey: undefined, audience: "http://localhost/api/v1", path: {}, query: {} };
      const created = await pipeline.execute(op("create_api_key"), { ...request, concretePath: "/api/v1/api-keys", body: {} });
      expect(created.status).toBe(401);
      expect(created.headers["Cache-Control"]).toBe("no-store");
      const listed = await pipeline.execute(op("list_api_keys"), { ...request, concretePath: "/api/v1/api-keys", body: undefined });
      expect(listed.headers["Cache-Control"]).toBeUndefined();
      // The operations whose answers carry a secret: an API key, a webhook signing secret.
      expect(OPERATIONS.filter((o) => o.sensitive).map((o) => o.name)).toEqual(["create_api_key", "create_webhook", "update_webhook"]);
    } finally {
      backends.close();
      await rateLimiter.close();
      await store.close();
    }
  });
});
