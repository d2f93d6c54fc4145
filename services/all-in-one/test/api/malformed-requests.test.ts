import { type Harness, startHarness } from "./harness";
import { type RawRequest, rawRequest } from "./raw-http";

// Requests the HTTP frame cannot decode (charset, Content-Encoding, body length, %-escapes) are the
// client's mistake on every route: a 4xx naming what was wrong, never a 500 or a hang.

let h: Harness;
let key: string;
beforeAll(async () => {
  h = await startHarness();
  key = (await h.newActor()).key;
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

interface Route {
  name: string;
  method: string;
  path: string;
  /** The media type the route parses. */
  type: string;
  body: string;
  /** How the route words errors: problem+json, JSON-RPC (MCP) or RFC 7591 (client registration). */
  dialect: "problem" | "json-rpc" | "oauth-registration";
}

const json = (name: string, method: string, path: string, dialect: Route["dialect"] = "problem"): Route => ({
  name,
  method,
  path,
  type: "application/json",
  body: '{"name":"x"}',
  dialect,
});
const form = (name: string, path: string): Route => ({ name, method: "POST", path, type: "application/x-www-form-urlencoded", body: "a=b", dialect: "problem" });

const ROUTES: Route[] = [
  json("REST write", "POST", "/api/v1/projects"),
  json("REST update", "PATCH", "/api/v1/account"),
  json("MCP", "POST", "/mcp", "json-rpc"),
  json("OAuth registration", "POST", "/oauth/register", "oauth-registration"),
  form("OAuth token", "/oauth/token"),
  form("OAuth revocation", "/oauth/revoke"),
  form("invitation page", "/invitations/inv-token-that-does-not-exist"),
];

interface Case {
  name: string;
  request: (r: Route) => RawRequest;
  status: number;
  code: string;
  path: string;
}

const CASES: Case[] = [
  {
    name: "an unsupported charset",
    request: (r) => ({ method: r.method, path: r.path, headers: { "Content-Type": `${r.type}; charset=bogus-8` }, body: r.body }),
    status: 415,
    code: "unsupported_media_type",
    path: "Content-Type",
  },
  {
    name: "Content-Encoding: gzip on a plain body",
    request: (r) => ({ method: r.method, path: r.path, headers: { "Content-Type": r.type, "Content-Encoding": "gzip" }, body: r.body }),
    status: 400,
    code: "validation_failed",
    path: "body",
  },
  {
    name: "an unsupported Content-Encoding",
    request: (r) => ({ method: r.method, path: r.path, headers: { "Content-Type": r.type, "Content-Encoding": "compress" }, body: r.body }),
    status: 415,
    code: "unsupported_media_type",
    path: "Content-Encoding",
  },
  {
    name: "a body over the size limit",
    request: (r) => ({ method: r.method, path: r.path, headers: { "Content-Type": r.type }, body: r.type === "application/json" ? `{"a":"${"x".repeat(2_100_000)}"}` : `a=${"x".repeat(2_100_000)}` }),
    status: 413,
    code: "payload_too_large",
    path: "body",
  },
];

const send = (route: Route, c: Case) => {
  const req = c.request(route);
  return rawRequest(h.url, { ...req, headers: { ...req.headers, Authorization: `Bearer ${key}` } });
};

// Each route answers in its own protocol's error shape: problem+json on REST, pages and the form-encoded
// OAuth endpoints; a JSON-RPC error (id null) on MCP; an RFC 7591 error on client registration, which
// knows only 400 invalid_client_metadata (and 413 for a body over its cap).
const expectRefusal = (route: Route, c: Case, res: { status: number; headers: Record<string, unknown>; body: string }) => {
  const body = JSON.parse(res.body) as Record<string, unknown>;
  if (route.dialect === "json-rpc") {
    expect(res.status).toBe(c.status);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: expect.any(Number), message: expect.any(String) } });
    return;
  }
  if (route.dialect === "oauth-registration") {
    expect(res.status).toBe(c.status === 413 ? 413 : 400);
    expect(body).toMatchObject({ error: "invalid_client_metadata" });
    return;
  }
  expect({ status: res.status, type: res.headers["content-type"] }).toEqual({ status: c.status, type: expect.stringMatching(/^application\/problem\+json/) });
  expect(body).toMatchObject({ status: c.status, code: c.code, errors: [{ path: c.path }] });
};

describe.each(CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
  it.each(ROUTES.map((r) => [r.name, r] as const))("answers %s with a 4xx in its protocol's error shape, naming the part", async (_route, route) => {
    expectRefusal(route, c, await send(route, c));
  });
});

describe("a malformed %-escape in a path parameter", () => {
  it.each([
    ["GET", "/api/v1/projects/%E0%A4%A"],
    ["PATCH", "/api/v1/projects/%E0%A4%A"],
    ["GET", "/api/v1/projects/%E0%A4%A/members"],
    ["GET", "/invitations/%E0%A4%A"],
    ["POST", "/invitations/%E0%A4%A"],
  ])("answers %s %s with 400 naming the path", async (method, path) => {
    const res = await rawRequest(h.url, { method, path, headers: { Authorization: `Bearer ${key}` } });
    expect({ status: res.status, type: res.headers["content-type"] }).toEqual({ status: 400, type: expect.stringMatching(/^application\/problem\+json/) });
    expect(JSON.parse(res.body)).toMatchObject({ code: "validation_failed", errors: [{ path: "path" }] });
  });
});

describe("an undecodable cookie", () => {
  it.each([
    ["POST", "/invitations/inv_unknown", "earshot_csrf=%", 403],
    ["POST", "/oauth/sign-in", "earshot_csrf=%E0%A4%A", 403],
    ["GET", "/oauth/consent?request=req_unknown", "earshot_app=%", 400],
  ])("is treated as absent: %s %s with %s answers %i", async (method, path, cookie, status) => {
    const res = await rawRequest(h.url, {
      method,
      path,
      headers: { Cookie: cookie, ...(method === "POST" ? { "Content-Type": "application/x-www-form-urlencoded" } : {}) },
      ...(method === "POST" ? { body: "csrf=abc&request=req_unknown" } : {}),
    });
    expect(res.status).toBe(status);
  });
});
