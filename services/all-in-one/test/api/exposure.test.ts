import { createHash } from "node:crypto";
import { CALLABLE_SERVICES } from "@earshot/registry";
import { type Harness, startHarness } from "./harness";

// What the public port shows: readiness as a bare status, no metrics, a locked-down reference page,
// uncacheable API answers, and 405 naming the methods a known path has. Metrics and per-service
// readiness live on the admin port.

let h: Harness;
let key: string;
beforeAll(async () => {
  h = await startHarness({ EARSHOT_METRICS_PORT: "0" });
  key = (await h.newActor()).key;
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

describe("health and metrics", () => {
  it("answers public readiness with a status only, naming no service or address", async () => {
    const res = await fetch(`${h.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready" });
  });

  it("serves no metrics on the public port", async () => {
    const res = await fetch(`${h.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("earshot_http_request_duration_seconds");
  });

  it("serves metrics and per-service readiness on the admin port", async () => {
    const adminUrl = h.running.adminUrl;
    expect(adminUrl).toMatch(/^http:\/\/localhost:\d+$/);
    expect(adminUrl).not.toBe(h.url);
    await fetch(`${h.url}/healthz`);
    const metrics = await fetch(`${adminUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("earshot_http_request_duration_seconds");
    const ready = (await (await fetch(`${adminUrl}/readyz`)).json()) as { status: string; services: Array<{ name: string; address: string; status: string }> };
    expect(ready.status).toBe("ready");
    expect(ready.services.map((s) => s.name).sort()).toEqual(CALLABLE_SERVICES.map((s) => s.name).sort());
    for (const s of ready.services) expect(s).toMatchObject({ address: expect.stringMatching(/^127\.0\.0\.1:\d+$/), status: "SERVING" });
  });
});

describe("the reference page", () => {
  it("has a CSP allowing nothing but its own inline style, by hash", async () => {
    const res = await fetch(`${h.url}/docs`);
    const html = await res.text();
    const csp = res.headers.get("content-security-policy") ?? "";
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(html).not.toMatch(/<script|\sstyle="|\son[a-z]+=/i);
  });
});

describe("caching", () => {
  it("marks every /api/v1 answer no-store, the new key's plaintext included", async () => {
    const created = await h.api("POST", "/api/v1/api-keys", { key, body: { name: "ci", scopes: ["projects:read"] } });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    for (const res of [
      await h.api("GET", "/api/v1/projects", { key }),
      await h.api("GET", "/api/v1/projects"),
      await h.api("GET", "/api/v1/no-such-thing", { key }),
      await h.api("DELETE", "/api/v1/projects", { key }),
    ]) {
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });
});

describe("methods", () => {
  it.each([
    ["DELETE", "/api/v1/projects", "GET, POST"],
    ["PUT", "/api/v1/account", "GET, PATCH, DELETE"],
    ["POST", "/api/v1/projects/prj_01JZZZZZZZZZZZZZZZZZZZZZZZ", "GET, PATCH, DELETE"],
  ])("answers %s %s with 405 and Allow: %s", async (method, path, allow) => {
    const res = await h.api(method, path, { key });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 405, code: "method_not_allowed" });
  });

  it("still answers 404 for a path no operation has", async () => {
    expect((await h.api("GET", "/api/v1/no-such-thing", { key })).status).toBe(404);
  });
});
