import { join } from "node:path";
import { startGateway, type StartedGateway } from "@earshot/edge";
import { silentLogger } from "@earshot/platform";
import { serviceAddresses } from "@earshot/registry";
import { makeTempDir } from "../../../platform/src/testing/tmp";
import { loadAllInOneConfig } from "../../src/config";
import { type Actor, type Harness, startHarness } from "./harness";

// A gateway with one backend down: it stays ready (so it is not taken out of its Service), the operations
// of the live services answer as usual, the down service's operations answer 503 `unavailable`, and the
// admin readiness names the service that is down.

let h: Harness;
let owner: Actor;
let projectId: string;
let gateway: StartedGateway;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  h = await startHarness();
  owner = await h.newActor();
  const created = await h.call("create_project", { name: "Degraded" }, owner.key);
  projectId = (created.body.data as { id: string }).id;
  const tmp = await makeTempDir("earshot-degraded-");
  cleanup = tmp.cleanup;
  const live = (name: string) => h.running.services.find((s) => s.name === name)?.address ?? "";
  // Nothing listens on port 1: the keyword service is down for this gateway.
  const addresses = serviceAddresses((name) => (name === "keyword" ? "127.0.0.1:1" : live(name)));
  // It signs its calls with the running instance's key, as a gateway of the same Earshot does.
  const config = loadAllInOneConfig({ EARSHOT_DATA_DIR: tmp.dir, LOG_LEVEL: "silent", EARSHOT_STORE_SYNC: "normal", EARSHOT_CALLER_SIGNING_KEY: h.running.callKeys.callerSigningKey });
  gateway = await startGateway({
    host: "127.0.0.1",
    port: 0,
    addresses,
    logger: silentLogger(),
    config,
    rateLimitPerMinute: 100_000,
    credentialCacheMs: 0,
    oauthKeysFile: join(tmp.dir, "keys.json"),
    oauthRateLimitPerMinute: 0,
    trustProxy: false,
    metricsPort: 0,
    bus: h.running.bus,
  });
}, 60_000);

afterAll(async () => {
  await gateway?.stop(1000);
  await cleanup?.();
  await h?.stop();
});

describe("a gateway with one backend down", () => {
  it("stays ready on its public port", async () => {
    const res = await fetch(`${gateway.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready" });
  });

  it("names the service that is down on the admin readiness, as degraded", async () => {
    const res = await fetch(`${gateway.adminUrl}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; services: Array<{ name: string; status: string }> };
    expect(body.status).toBe("degraded");
    const states = Object.fromEntries(body.services.map((s) => [s.name, s.status]));
    expect(states.keyword).toBe("UNREACHABLE");
    expect(states.project).toBe("SERVING");
    expect(states.account).toBe("SERVING");
  });

  it("serves the live services' operations", async () => {
    const res = await fetch(`${gateway.url}/api/v1/projects/${projectId}`, { headers: { Authorization: `Bearer ${owner.key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { name: string } }).data.name).toBe("Degraded");
  });

  it("answers the down service's operations 503 unavailable, as problem+json", async () => {
    const res = await fetch(`${gateway.url}/api/v1/keywords?projectId=${projectId}`, { headers: { Authorization: `Bearer ${owner.key}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 503, code: "unavailable" });
  });
});
