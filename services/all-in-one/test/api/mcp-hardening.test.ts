import { request as httpRequest } from "node:http";
import { ManualClock } from "@earshot/platform";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Actor, type Harness, startHarness } from "./harness";

// What outside clients and attack scripts sent to /mcp: malformed bodies, foreign origins, hostile
// arguments, and more requests than a credential's budget.

let h: Harness;
let owner: Actor;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newActor();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const ACCEPT = "application/json, text/event-stream";

const post = (harness: Harness, body: string, headers: Record<string, string> = {}) =>
  fetch(`${harness.url}/mcp`, { method: "POST", headers: { "Content-Type": "application/json", Accept: ACCEPT, ...headers }, body });

const authed = (key: string, extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${key}`, ...extra });

const toolCall = (id: number, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });

const connect = async (key: string) => {
  const client = new Client({ name: "hardening", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
};

const problemOf = (result: { content?: unknown }) => JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { status: number; errors?: Array<{ path: string }> };

/** A raw request with a chosen Host header (fetch does not let a caller set one). */
const getWithHost = (path: string, host: string) =>
  new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const url = new URL(path, h.url);
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers: { Host: host } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end();
  });

/** A raw POST with a chosen Host header and no Origin, as a page whose name was re-pointed at loopback sends it. */
const postWithHost = (host: string, body: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const url = new URL("/mcp", h.url);
    const req = httpRequest(
      { method: "POST", host: url.hostname, port: url.port, path: url.pathname, headers: { Host: host, "Content-Type": "application/json", Accept: ACCEPT, ...headers } },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });

describe("malformed MCP requests", () => {
  it.each([["{bad"], ["["], ['{"jsonrpc": "2.0", "id": 1,']])("answers the body %s with 400 and a JSON-RPC parse error", async (body) => {
    const res = await post(h, body, authed(owner.key));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: expect.any(String) }, id: null });
  });

  it.each([
    ["null", "null", null],
    ["a number", "42", null],
    ["a string", '"tools/list"', null],
    ["an empty object", "{}", null],
    ["an object without jsonrpc", '{"id": 3, "method": "tools/list"}', 3],
    ["an object with another jsonrpc", '{"jsonrpc": "1.0", "id": "a", "method": "tools/list"}', "a"],
    ["an object without method", '{"jsonrpc": "2.0", "id": 4}', 4],
    ["a batch with one such object", '[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, {"id": 2}]', null],
  ])("answers well-formed JSON that is no JSON-RPC message (%s) with 400 and -32600 Invalid Request", async (_what, body, id) => {
    const res = await post(h, body, authed(owner.key));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) }, id });
  });

  it("answers a body over the limit with 413", async () => {
    const res = await post(h, toolCall(1, { name: "list_projects", arguments: { pad: "x".repeat(1_100_000) } }), authed(owner.key));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it("answers an empty batch with 400 and a JSON-RPC invalid-request error", async () => {
    const res = await post(h, "[]", authed(owner.key));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: expect.stringContaining("empty batch") }, id: null });
  });

  it.each([
    ["a string", "list_projects"],
    ["an array", [1, 2]],
    ["null", null],
  ])("answers arguments that are %s with -32602 and a clean message", async (_what, args) => {
    const res = await post(h, toolCall(7, { name: "list_projects", arguments: args === "list_projects" ? "oops" : args }), authed(owner.key));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; error: { code: number; message: string } };
    // One sentence, not a validator's dump (the SDK prefixes the code).
    expect(body).toMatchObject({ id: 7, error: { code: -32602, message: "MCP error -32602: params.arguments must be a JSON object." } });
  });

  it("answers a tools/call without a tool name with -32602", async () => {
    const res = await post(h, toolCall(8, { arguments: {} }), authed(owner.key));
    expect(((await res.json()) as { error: { code: number; message: string } }).error).toEqual({ code: -32602, message: "MCP error -32602: params.name must name a tool." });
  });
});

describe("browser origins on /mcp", () => {
  const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

  it("refuses a foreign Origin with 403 problem details naming Origin", async () => {
    const res = await post(h, list, authed(owner.key, { Origin: "https://evil.example" }));
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(await res.json()).toMatchObject({ code: "forbidden", errors: [{ path: "Origin" }] });
    expect((await post(h, list, authed(owner.key, { Origin: "null" }))).status).toBe(403);
  });

  it("accepts its own origins, loopback aliases of the listening port included, and requests without Origin", async () => {
    const port = new URL(h.url).port;
    for (const origin of [h.url, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]) {
      expect({ origin, status: (await post(h, list, authed(owner.key, { Origin: origin }))).status }).toEqual({ origin, status: 200 });
    }
    expect((await post(h, list, authed(owner.key, { Origin: "http://127.0.0.1:1" }))).status).toBe(403);
    expect((await post(h, list, authed(owner.key))).status).toBe(200);
  });

  it("accepts the origins listed in EARSHOT_ALLOWED_ORIGINS, with CORS headers for them and none for others", async () => {
    const other = await startHarness({ EARSHOT_ALLOWED_ORIGINS: "https://agent.example, https://ide.example:8443" });
    try {
      const actor = await other.newActor();
      const allowed = await post(other, list, authed(actor.key, { Origin: "https://ide.example:8443" }));
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://ide.example:8443");
      expect(allowed.headers.get("access-control-expose-headers")).toBe("WWW-Authenticate, RateLimit, RateLimit-Policy, Retry-After, Mcp-Session-Id");
      expect(allowed.headers.get("vary")).toMatch(/Origin/);
      const foreign = await post(other, list, authed(actor.key, { Origin: "https://evil.example" }));
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get("access-control-allow-origin")).toBeNull();

      const preflight = (origin: string) =>
        fetch(`${other.url}/mcp`, {
          method: "OPTIONS",
          headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version" },
        });
      const ok = await preflight("https://agent.example");
      expect(ok.status).toBe(204);
      expect(ok.headers.get("access-control-allow-origin")).toBe("https://agent.example");
      expect(ok.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE");
      expect(ok.headers.get("access-control-allow-headers")).toBe("Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Idempotency-Key");
      expect(ok.headers.get("vary")).toMatch(/Origin/);
      const refused = await preflight("https://evil.example");
      expect(refused.status).toBe(403);
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await other.stop();
    }
  }, 60_000);
});

describe("DNS rebinding", () => {
  const listTools = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

  it.each(["evil.example", "evil.example:PORT", "127.0.0.2:PORT", "localhost:1"])("refuses Host %s with 403 on a server bound to loopback, although no Origin was sent", async (pattern) => {
    const host = pattern.replace("PORT", new URL(h.url).port);
    const res = await postWithHost(host, listTools, authed(owner.key));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "forbidden", errors: [{ path: "Host", message: "is not a name of this server" }] });
  });

  it("answers each loopback name of its port", async () => {
    const port = new URL(h.url).port;
    for (const host of [`127.0.0.1:${port}`, `[::1]:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const res = await postWithHost(host, listTools, authed(owner.key));
      expect({ host, status: res.status }).toEqual({ host, status: 200 });
    }
  });
});

describe("what the MCP resource tells clients", () => {
  it("names a default scope set in the 401 challenge, consistent with the resource metadata, without account:write or usage:write", async () => {
    const res = await post(h, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(res.status).toBe(401);
    const scope = /scope="([^"]+)"/.exec(res.headers.get("www-authenticate") ?? "")?.[1]?.split(" ") ?? [];
    expect(scope).toEqual(expect.arrayContaining(["mcp", "projects:read", "projects:write", "account:read"]));
    expect(scope).not.toContain("account:write");
    expect(scope).not.toContain("usage:write");
    const prm = (await (await fetch(`${h.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { scopes_supported: string[] };
    expect(prm.scopes_supported).toEqual(scope);
  });

  it("names the origin the client used, for every loopback alias of the listening port, and no other", async () => {
    const port = new URL(h.url).port;
    for (const host of [`127.0.0.1:${port}`, `[::1]:${port}`, `localhost:${port}`]) {
      const prm = await getWithHost("/.well-known/oauth-protected-resource/mcp", host);
      expect(prm.body).toMatchObject({ resource: `http://${host}/mcp`, authorization_servers: [`http://${host}`] });
      const as = await getWithHost("/.well-known/oauth-authorization-server", host);
      expect(as.body).toMatchObject({ issuer: `http://${host}`, token_endpoint: `http://${host}/oauth/token` });
    }
    for (const host of ["evil.example", `127.0.0.1:${Number(port) + 1}`]) {
      const prm = await getWithHost("/.well-known/oauth-protected-resource/mcp", host);
      expect(prm.body).toMatchObject({ resource: `${h.url}/mcp` });
    }
  });
});

describe("hostile tool arguments", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(owner.key);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("refuses a __proto__ argument as an unknown field", async () => {
    const res = await post(h, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_project","arguments":{"name":"P","__proto__":{"admin":true}}}}`, authed(owner.key));
    const body = (await res.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
    expect(body.result.isError).toBe(true);
    expect(problemOf(body.result)).toMatchObject({ status: 400, errors: [{ path: "__proto__", message: "is not a known field" }] });
  });

  it("refuses an idempotencyKey that is not a string with a 400 result naming idempotencyKey", async () => {
    const result = await client.callTool({ name: "create_project", arguments: { name: "Keyed", idempotencyKey: { a: 1 } } });
    expect(result.isError).toBe(true);
    expect(problemOf(result)).toMatchObject({ status: 400, errors: [{ path: "idempotencyKey", message: "must be a string" }] });
  });

  it("refuses unknown arguments of a tool whose operation has no body", async () => {
    const result = await client.callTool({ name: "list_projects", arguments: { limit: 5, sneaky: true } });
    expect(problemOf(result)).toMatchObject({ status: 400, errors: [{ path: "sneaky", message: expect.stringMatching(/^is not a field of list_projects \(it takes `limit`, `cursor`\)$/) }] });
  });

  it("requires memberType on remove_project_member over MCP, as its tool schema says", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "remove_project_member")?.inputSchema.required).toEqual(expect.arrayContaining(["projectId", "memberId", "memberType"]));
    const result = await client.callTool({ name: "remove_project_member", arguments: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ", memberId: "mbr_01JZZZZZZZZZZZZZZZZZZZZZZZ" } });
    expect(problemOf(result)).toMatchObject({ status: 400, errors: [{ path: "memberType", message: "is required" }] });
  });

  it("annotates update_project as destructive, since it can archive", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "update_project")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });
});

describe("MCP rate limits", () => {
  let limited: Harness;
  let actor: Actor;
  beforeAll(async () => {
    // A clock held in the middle of a minute keeps the test's requests in one rate-limit window.
    const midMinute = new Date();
    midMinute.setUTCSeconds(30, 0);
    limited = await startHarness({ EARSHOT_RATE_LIMIT_PER_MINUTE: "3" }, new ManualClock(midMinute));
    actor = await limited.newActor();
  }, 60_000);
  afterAll(async () => {
    await limited?.stop();
  });

  it("charges a batch one unit per message, announces the budget, and refuses tools/list when it is spent", async () => {
    const calls = (ids: number[]) => JSON.stringify(ids.map((id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "list_projects", arguments: {} } })));
    const first = await post(limited, calls([1, 2]), authed(actor.key));
    expect(first.status).toBe(200);
    const results = (await first.json()) as Array<{ result: { isError?: boolean } }>;
    expect(results.map((r) => r.result.isError ?? false)).toEqual([false, false]);
    expect(first.headers.get("ratelimit-policy")).toBe('"default";q=3;w=60');
    expect(first.headers.get("ratelimit")).toMatch(/^"default";r=1;t=\d+$/);
    // Two more messages than the one unit left: the whole batch is refused and nothing is charged.
    expect((await post(limited, calls([3, 4]), authed(actor.key))).status).toBe(429);
    const list = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    expect((await post(limited, list, authed(actor.key))).headers.get("ratelimit")).toMatch(/^"default";r=0;/);
    const refused = await post(limited, list, authed(actor.key));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit")).toMatch(/^"default";r=0;/);
    expect(await refused.json()).toMatchObject({ status: 429, code: "rate_limited" });
  });
});
