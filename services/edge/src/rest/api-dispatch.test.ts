import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DomainError, silentLogger } from "@earshot/platform";
import type { Backends } from "../backends";
import { OPERATIONS } from "../catalog";
import { createGatewayApp } from "../gateway-app";
import { frameHeaders } from "../http/frame-headers";
import { createHttpMetrics } from "../http/metrics";
import { toProblem } from "../http/problem";
import type { OperationRequest, OperationResponse, Pipeline } from "../pipeline/execute";
import { mcpDispatch } from "../mcp/mcp-dispatch";
import { apiDispatch } from "./api-dispatch";

// The API dispatch answers the catalog's reads ahead of express. It must answer exactly what the express
// chain answers (the same status, headers and body, the same request handed to the pipeline), and hand
// express everything it does not answer itself. The pipeline here only records what it was given and
// answers what the test tells it: the HTTP frame is what is compared.

type Recorded = Omit<OperationRequest, "accepts" | "requestId"> & { requestId: string };

const recordingPipeline = (recorded: Recorded[]): Pipeline =>
  ({
    options: { logger: silentLogger() },
    authenticate: async (authorization: string | undefined) => {
      if (authorization === "Bearer explode") throw new Error("store unreachable");
      throw new DomainError("unauthorized", authorization ? "That credential is not valid." : "Send a Bearer token.");
    },
    execute: async (op: { name: string }, request: OperationRequest): Promise<OperationResponse> => {
      const { accepts: _accepts, ...rest } = request;
      recorded.push(rest);
      const tell = String(request.query.tell ?? "");
      if (tell === "throw") throw new Error("escaped the pipeline");
      if (tell === "problem") {
        const problem = toProblem(new DomainError("not_found", "No such project."), request.requestId, request.concretePath);
        return { status: 404, body: problem, headers: { "WWW-Authenticate": 'Bearer realm="earshot"' } };
      }
      if (tell === "limited") {
        const problem = toProblem(new DomainError("rate_limited", "Slow down.", { details: { retryAfter: 7 } }), request.requestId, request.concretePath);
        return { status: 429, body: problem, headers: { "Retry-After": "7", "RateLimit-Remaining": "0" } };
      }
      if (tell === "sensitive") return { status: 200, body: { data: { secret: "s" }, meta: {} }, headers: { "cache-control": "no-store" } };
      return { status: 200, body: { data: { op: op.name, path: request.path, query: request.query }, meta: { requestId: request.requestId } }, headers: { "RateLimit-Limit": "100" } };
    },
  }) as unknown as Pipeline;

const listen = async (listener: RequestListener): Promise<{ server: Server; base: string }> => {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

const appWith = (pipeline: Pipeline, apiDispatchOn: boolean) =>
  createGatewayApp({
    backends: { health: [] } as unknown as Backends,
    pipeline,
    operations: OPERATIONS,
    pages: [],
    logger: silentLogger(),
    publicUrl: "http://api.example",
    surfaces: { rest: true, mcp: true },
    trustProxy: "loopback",
    apiDispatch: apiDispatchOn,
  });

/** What a client sees of an answer, without what differs per request (the date, a generated id). */
const seen = async (res: Response) => {
  const text = await res.text();
  const generated = res.headers.get("x-request-id") ?? "";
  const headers = [...res.headers.entries()].filter(([k]) => k !== "date" && k !== "keep-alive" && k !== "connection");
  const mask = (s: string) => (generated.startsWith("req_") ? s.split(generated).join("<generated id>") : s);
  return { status: res.status, headers: headers.map(([k, v]) => [k, mask(v)]), body: mask(text) };
};

const MCP_JSON = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

const REQUESTS: Array<{ path: string; method?: string; body?: string; headers?: Record<string, string> }> = [
  { path: "/api/v1/projects/prj_1" },
  { path: "/api/v1/projects/prj_1", headers: { "X-Request-Id": "client-chosen-id-1" } },
  { path: "/api/v1/projects/prj_1", headers: { "X-Request-Id": "no good!" } },
  { path: "/api/v1/projects/prj_%C3%A9" },
  { path: "/api/v1/mentions?projectId=prj_1&status=open&status=done&limit=5&limit=7&q=a+b%20c" },
  { path: "/api/v1/mentions/analytics?projectId=prj_1&groupBy=source" },
  { path: "/api/v1/mentions/men_1" },
  { path: "/api/v1/projects/prj_1/members?limit=2", headers: { Authorization: "Bearer ek_test", "Idempotency-Key": "k-1" } },
  { path: "/api/v1/projects/prj_1?tell=problem" },
  { path: "/api/v1/projects/prj_1?tell=limited" },
  { path: "/api/v1/projects/prj_1?tell=sensitive" },
  { path: "/api/v1/projects/prj_1?tell=throw" },
  { path: "/api/v1/projects/prj_1", headers: { "X-Forwarded-For": "203.0.113.9", Host: "other.example" } },
  // Taken by express in both apps: a download, a bad escape, a trailing slash, another case, no route, a 405.
  { path: "/api/v1/mentions/export?projectId=prj_1" },
  { path: "/api/v1/projects/%E0%A4%A" },
  { path: "/api/v1/projects/prj_1/" },
  { path: "/API/V1/projects/prj_1" },
  { path: "/api/v1/nothing/here" },
  { path: "/api/v1/mentions/men_1/category" },
  // MCP: plain POSTs are answered by the MCP dispatch; the rest by express in both apps.
  { path: "/mcp", method: "POST", body: '{"jsonrpc":"2.0","id":1,"method":"ping"}', headers: MCP_JSON },
  { path: "/mcp?x=1", method: "POST", body: '{"jsonrpc":"2.0","id":1,"method":"ping"}', headers: { ...MCP_JSON, Authorization: "Bearer nope", "X-Request-Id": "client-chosen-id-2" } },
  { path: "/mcp", method: "POST", body: '{"jsonrpc":"2.0","id":1,"method":"ping"}', headers: { ...MCP_JSON, Authorization: "Bearer explode" } },
  { path: "/mcp", method: "POST", body: "{not json", headers: MCP_JSON },
  { path: "/mcp", method: "POST", body: '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}', headers: { ...MCP_JSON, "Content-Type": "application/json; charset=UTF-8" } },
  { path: "/mcp", method: "POST", body: "{}", headers: { ...MCP_JSON, "Content-Type": "application/json; charset=latin1" } },
  { path: "/mcp", method: "POST", body: "{}", headers: { ...MCP_JSON, "Content-Type": "text/plain" } },
  { path: "/mcp", method: "POST", body: "{}", headers: { ...MCP_JSON, Origin: "https://evil.example" } },
  { path: "/mcp", method: "POST", body: "{}", headers: { ...MCP_JSON, Origin: "http://api.example" } },
  { path: "/mcp", method: "POST", body: "", headers: MCP_JSON },
  { path: "/mcp", method: "OPTIONS", headers: { Origin: "http://api.example", "Access-Control-Request-Method": "POST" } },
  { path: "/mcp", method: "GET" },
  { path: "/mcp/", method: "POST", body: "{}", headers: MCP_JSON },
  { path: "/MCP", method: "DELETE" },
];

describe("the API dispatch", () => {
  const viaExpress: Recorded[] = [];
  const viaDispatch: Recorded[] = [];
  let expressOnly: { server: Server; base: string };
  let withDispatch: { server: Server; base: string };

  beforeAll(async () => {
    expressOnly = await listen(appWith(recordingPipeline(viaExpress), false));
    withDispatch = await listen(appWith(recordingPipeline(viaDispatch), true));
  });
  afterAll(async () => {
    await new Promise((r) => expressOnly.server.close(r));
    await new Promise((r) => withDispatch.server.close(r));
  });

  it.each(REQUESTS.map((r) => ({ method: "GET", headers: {}, ...r })))("answers $method $path with headers $headers exactly as the express chain does", async ({ path, method, body, headers }) => {
    viaExpress.length = 0;
    viaDispatch.length = 0;
    const init = { method, headers, ...(body === undefined ? {} : { body }) };
    const a = await seen(await fetch(`${expressOnly.base}${path}`, init));
    const b = await seen(await fetch(`${withDispatch.base}${path}`, init));
    expect(b).toEqual(a);
    const masked = (r: Recorded[]) => r.map((x) => ({ ...x, requestId: x.requestId.startsWith("req_") ? "<generated id>" : x.requestId }));
    expect(masked(viaDispatch)).toEqual(masked(viaExpress));
  });

  it("hands the pipeline the client's address through the trusted proxy, and the audience of the origin reached", async () => {
    viaDispatch.length = 0;
    await fetch(`${withDispatch.base}/api/v1/projects/prj_1`, { headers: { "X-Forwarded-For": "203.0.113.9" } });
    expect(viaDispatch[0]).toMatchObject({ clientAddress: "203.0.113.9", audience: "http://api.example/api/v1", concretePath: "/api/v1/projects/prj_1", path: { projectId: "prj_1" } });
  });

  it("answers the catalog's reads itself and passes everything else to express", async () => {
    const passed: string[] = [];
    const dispatch = apiDispatch(
      {
        operations: OPERATIONS,
        pipeline: recordingPipeline([]),
        audienceOf: () => "http://api.example/api/v1",
        frame: frameHeaders(),
        metrics: createHttpMetrics(),
        logger: silentLogger(),
        trustProxy: () => false,
        parseQuery: () => ({}),
      },
      (req, res) => {
        passed.push(`${req.method} ${req.url}`);
        res.writeHead(204).end();
      },
    );
    const { server, base } = await listen(dispatch);
    try {
      const send = (path: string, init?: RequestInit) => fetch(`${base}${path}`, init).then((r) => r.text());
      await send("/api/v1/projects/prj_1");
      await send("/api/v1/mentions?projectId=prj_1");
      await send("/api/v1/mentions/analytics");
      expect(passed).toEqual([]);
      await send("/api/v1/mentions/export");
      await send("/api/v1/projects/prj_1/");
      await send("/api/v1/projects/%E0%A4%A");
      await send("/api/v1/projects", { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } });
      await send("/api/v1/projects/prj_1", { method: "HEAD" });
      await send("/api/v1/mentions/men_1/category");
      await send("/healthz");
      await send("/api/v1/openapi.json");
      expect(passed).toEqual([
        "GET /api/v1/mentions/export",
        "GET /api/v1/projects/prj_1/",
        "GET /api/v1/projects/%E0%A4%A",
        "POST /api/v1/projects",
        "HEAD /api/v1/projects/prj_1",
        "GET /api/v1/mentions/men_1/category",
        "GET /healthz",
        "GET /api/v1/openapi.json",
      ]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("the MCP dispatch", () => {
  it("answers plain JSON POSTs to /mcp itself and passes everything else to express", async () => {
    const passed: string[] = [];
    const served: unknown[] = [];
    let dispatch: RequestListener = () => undefined;
    const { server, base } = await listen((req, res) => dispatch(req, res));
    dispatch = mcpDispatch(
      {
        servePost: async (_req, res, post) => {
          served.push(post.body);
          res.writeHead(200).end();
        },
        hostNames: [new URL(base).host],
        frame: frameHeaders(),
        metrics: createHttpMetrics(),
        logger: silentLogger(),
        trustProxy: () => false,
      },
      (req, res) => {
        passed.push(`${req.method} ${req.url} ${req.headers["content-type"] ?? ""}`.trim());
        req.resume();
        res.writeHead(204).end();
      },
    );
    try {
      const post = (path: string, headers: Record<string, string>, body = '{"a":1}') => fetch(`${base}${path}`, { method: "POST", headers, body }).then((r) => r.text());
      await post("/mcp", { "Content-Type": "application/json" });
      await post("/mcp?x=1", { "Content-Type": "Application/JSON; charset=utf-8" });
      expect(served).toEqual([{ a: 1 }, { a: 1 }]);
      expect(passed).toEqual([]);
      await post("/mcp", { "Content-Type": "application/json", Origin: "http://127.0.0.1" });
      await fetch(`${base.replace("127.0.0.1", "localhost")}/mcp`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }).then((r) => r.text());
      await post("/mcp", { "Content-Type": "text/plain" });
      await post("/mcp", { "Content-Type": "application/json" }, "");
      await post("/mcp/", { "Content-Type": "application/json" });
      await fetch(`${base}/mcp`).then((r) => r.text());
      expect(passed).toEqual(["POST /mcp application/json", "POST /mcp application/json", "POST /mcp text/plain", "POST /mcp application/json", "POST /mcp/ application/json", "GET /mcp"]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
