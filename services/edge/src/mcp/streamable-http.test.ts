import type { AddressInfo } from "node:net";
import { silentLogger } from "@earshot/platform";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import express from "express";
import { OPERATIONS } from "../catalog";
import type { OperationRequest, Pipeline } from "../pipeline/execute";
import type { Principal } from "../pipeline/principal";
import { mcpRouter } from "./mcp-route";

// What /mcp answers at the HTTP level, as the MCP Streamable HTTP transport (2025-06-18) asks of a
// stateless server answering in JSON: the refusals before any JSON-RPC handling, notifications and
// responses acknowledged with 202, batches, JSON-RPC errors with their ids, and requests of different
// clients carrying the same JSON-RPC ids answered each to its own client.

const ACCEPT = "application/json, text/event-stream";
const PRINCIPAL = {
  userId: "usr_1",
  workspaceId: "wsp_1",
  email: "a@example.com",
  scopes: ["mcp", "projects:read"],
  credentialId: "key_1",
  credentialType: "api_key",
} as unknown as Principal;

const open: Array<import("node:http").Server> = [];
afterEach(async () => {
  for (const server of open.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Calls held until the test releases them, so that several can be in flight at once. */
class HeldCalls {
  readonly arrived: Array<{ request: OperationRequest; release: () => void }> = [];
  private waiters: Array<() => void> = [];
  hold(request: OperationRequest): Promise<void> {
    return new Promise((release) => {
      this.arrived.push({ request, release });
      for (const w of this.waiters.splice(0)) w();
    });
  }
  async untilArrived(n: number): Promise<void> {
    while (this.arrived.length < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

const serve = async (options: { held?: HeldCalls } = {}) => {
  const pipeline = {
    authenticate: async () => PRINCIPAL,
    options: { rateLimiter: { take: async () => ({ allowed: true, remaining: 9, resetSeconds: 60, headers: {} }) } },
    execute: async (_op: unknown, request: OperationRequest) => {
      await options.held?.hold(request);
      return { status: 200, headers: {}, body: { data: { id: request.path.projectId }, meta: { apiVersion: "2026-08-24" } } };
    },
  } as unknown as Pipeline;
  const app = express();
  app.use(
    mcpRouter({
      operations: OPERATIONS.filter((op) => op.name === "get_project"),
      pipeline,
      logger: silentLogger(),
      resource: "http://127.0.0.1/mcp",
      resourceMetadataUrl: "http://127.0.0.1/.well-known/oauth-protected-resource/mcp",
    }),
  );
  const server = app.listen(0, "127.0.0.1");
  open.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const post = (body: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(url, { method: "POST", headers: { Authorization: "Bearer k", "Content-Type": "application/json", Accept: ACCEPT, ...headers }, body, signal: signal ?? null });
  const connect = async () => {
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: "Bearer k" } } }));
    return client;
  };
  return { url, post, connect };
};

const listTools = (id: number | string = 1) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" });
const getProject = (id: number, projectId: string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_project", arguments: { projectId } } });
const initialize = (id: number) => ({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });

const expectRefusal = async (res: Response, status: number, code: number, message: RegExp) => {
  expect({ status: res.status, type: res.headers.get("content-type") }).toEqual({ status, type: expect.stringMatching(/^application\/json/) });
  expect(await res.json()).toEqual({ jsonrpc: "2.0", error: { code, message: expect.stringMatching(message) }, id: null });
};

describe("refusals of the Streamable HTTP transport", () => {
  it.each([["application/json"], ["text/event-stream"], ["*/*"], [""]])("answers 406 when Accept is %j, not both application/json and text/event-stream", async (accept) => {
    const s = await serve();
    await expectRefusal(await s.post(listTools(), { Accept: accept }), 406, -32000, /^Not Acceptable/);
  });

  it.each([["text/plain"], ["application/x-www-form-urlencoded"], ["text/plain; a=application/json"]])("answers 415 for the Content-Type %s", async (type) => {
    const s = await serve();
    await expectRefusal(await s.post(listTools(), { "Content-Type": type }), 415, -32000, /^Unsupported Media Type/);
  });

  it("answers 400 for an MCP-Protocol-Version it does not support, and accepts a supported one or none", async () => {
    const s = await serve();
    await expectRefusal(await s.post(listTools(), { "MCP-Protocol-Version": "1999-01-01" }), 400, -32000, /Unsupported protocol version: 1999-01-01/);
    expect((await s.post(listTools(), { "MCP-Protocol-Version": "2025-06-18" })).status).toBe(200);
    expect((await s.post(listTools())).status).toBe(200);
  });

  it("negotiates on initialize whatever MCP-Protocol-Version header it carries", async () => {
    const s = await serve();
    const res = await s.post(JSON.stringify(initialize(1)), { "MCP-Protocol-Version": "1999-01-01" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18", serverInfo: { name: "earshot" } } });
  });

  it.each([
    ["a request without id", '{"jsonrpc": "2.0", "id": null, "method": "ping"}'],
    ["a fractional id", '{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}'],
    ["an unknown member", '{"jsonrpc": "2.0", "id": 1, "method": "ping", "extra": true}'],
    ["params that are no object", '{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}'],
  ])("answers a message the JSON-RPC schema refuses (%s) with 400 and -32700", async (_what, body) => {
    const s = await serve();
    await expectRefusal(await s.post(body), 400, -32700, /^Parse error/);
  });

  it("answers a body that is no JSON with 400 and -32700", async () => {
    const s = await serve();
    await expectRefusal(await s.post("{bad"), 400, -32700, /^Parse error/);
  });

  it("refuses a batch of more than 100 messages, and an initialize sent with other messages", async () => {
    const s = await serve();
    const pings = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "ping" }));
    await expectRefusal(await s.post(JSON.stringify(pings)), 400, -32600, /^Invalid Request: Batch must not exceed 100/);
    await expectRefusal(await s.post(JSON.stringify([initialize(1), { jsonrpc: "2.0", id: 2, method: "ping" }])), 400, -32600, /Only one initialization request/);
  });

  it.each([["GET"], ["DELETE"], ["PUT"]])("answers %s with 405 and Allow: POST (stateless: no stream, no session)", async (method) => {
    const s = await serve();
    const res = await fetch(s.url, { method, headers: { Authorization: "Bearer k", Accept: ACCEPT } });
    expect(res.headers.get("allow")).toBe("POST");
    await expectRefusal(res, 405, -32000, /^Method not allowed/);
  });
});

describe("what the Streamable HTTP transport answers", () => {
  it("acknowledges notifications and responses alone with 202 and no body", async () => {
    const s = await serve();
    for (const body of [
      { jsonrpc: "2.0", method: "notifications/initialized" },
      [{ jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } }],
      { jsonrpc: "2.0", id: 3, result: {} },
      { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not found" } },
    ]) {
      const res = await s.post(JSON.stringify(body));
      expect({ body, status: res.status, text: await res.text() }).toEqual({ body, status: 202, text: "" });
    }
  });

  it("answers a batch with the responses of its requests, in order, as one JSON array", async () => {
    const s = await serve();
    const res = await s.post(JSON.stringify([{ jsonrpc: "2.0", id: "a", method: "ping" }, { jsonrpc: "2.0", method: "notifications/initialized" }, getProject(2, "prj_2")]));
    expect({ status: res.status, type: res.headers.get("content-type") }).toEqual({ status: 200, type: expect.stringMatching(/^application\/json/) });
    expect(await res.json()).toEqual([
      { jsonrpc: "2.0", id: "a", result: {} },
      { jsonrpc: "2.0", id: 2, result: expect.objectContaining({ structuredContent: { data: { id: "prj_2" }, meta: { apiVersion: "2026-08-24" } } }) },
    ]);
  });

  it("answers a batch holding one request with that response alone, not an array", async () => {
    const s = await serve();
    const res = await s.post(JSON.stringify([{ jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: 5, method: "ping" }]));
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
  });

  it("answers an unknown method with a JSON-RPC error carrying the request's id", async () => {
    const s = await serve();
    const res = await s.post(JSON.stringify({ jsonrpc: "2.0", id: "x-1", method: "completion/complete" }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: "x-1", error: { code: -32601, message: "Method not found" } });
  });

  it("returns the tool's body as structured content and as the same JSON in text", async () => {
    const s = await serve();
    const res = await s.post(JSON.stringify(getProject(9, 'prj_"quoted"\u2028')));
    const body = (await res.json()) as { id: number; result: { structuredContent: unknown; content: Array<{ type: string; text: string }> } };
    expect(body.id).toBe(9);
    expect(body.result.structuredContent).toEqual({ data: { id: 'prj_"quoted"\u2028' }, meta: { apiVersion: "2026-08-24" } });
    expect(body.result.content).toEqual([{ type: "text", text: JSON.stringify(body.result.structuredContent) }]);
  });

  it("serves the SDK client: initialize, ping, tools/list and tools/call", async () => {
    const s = await serve();
    const client = await s.connect();
    expect(client.getServerVersion()).toMatchObject({ name: "earshot" });
    await expect(client.ping()).resolves.toEqual({});
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["get_project"]);
    const other = await s.connect();
    const result = await other.callTool({ name: "get_project", arguments: { projectId: "prj_1" } });
    expect(result.structuredContent).toEqual({ data: { id: "prj_1" }, meta: { apiVersion: "2026-08-24" } });
    await client.close();
    await other.close();
  });
});

describe("requests of different clients with the same JSON-RPC ids", () => {
  it("answers each client with its own result while both are in flight", async () => {
    const held = new HeldCalls();
    const s = await serve({ held });
    const calls = ["prj_a", "prj_b", "prj_c"].map((projectId) => s.post(JSON.stringify(getProject(1, projectId))));
    await held.untilArrived(3);
    for (const call of [...held.arrived].reverse()) call.release();
    const answers = await Promise.all(calls.map(async (c) => (await c).json()));
    expect(answers.map((a) => (a as { id: number; result: { structuredContent: { data: { id: string } } } }).result.structuredContent.data.id)).toEqual(["prj_a", "prj_b", "prj_c"]);
  });

  it("never gives the late answer of a client that went away to another client", async () => {
    const held = new HeldCalls();
    const s = await serve({ held });
    const gone = new AbortController();
    const first = s.post(JSON.stringify(getProject(1, "prj_gone")), {}, gone.signal);
    await held.untilArrived(1);
    gone.abort();
    await expect(first).rejects.toThrow();
    const second = s.post(JSON.stringify(getProject(1, "prj_here")));
    await held.untilArrived(2);
    held.arrived[0]!.release();
    held.arrived[1]!.release();
    expect(await (await second).json()).toMatchObject({ id: 1, result: { structuredContent: { data: { id: "prj_here" } } } });
    // The server of the call that went away serves again once its call has finished.
    const third = s.post(JSON.stringify(getProject(1, "prj_next")));
    await held.untilArrived(3);
    held.arrived[2]!.release();
    expect(await (await third).json()).toMatchObject({ id: 1, result: { structuredContent: { data: { id: "prj_next" } } } });
  });
});
