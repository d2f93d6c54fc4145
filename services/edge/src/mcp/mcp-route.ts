import { DomainError, isDomainError, type Logger, newId } from "@earshot/platform";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import { CallToolRequestSchema, ErrorCode, type JSONRPCMessage, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type NextFunction, type Request, type Response, Router } from "express";
import { isTool, type Operation } from "../catalog/operation";
import { sendProblem, toProblem, writeJson, writeProblem } from "../http/problem";
import { type PublicOrigins, publicOrigins } from "../oauth/public-origins";
import type { Pipeline } from "../pipeline/execute";
import type { Principal } from "../pipeline/principal";
import { type CallContext, callContextOf } from "./call-context";
import { refuseForeignHost } from "./host-gate";
import { JsonExchangeTransport } from "./json-exchange-transport";
import { gateJsonRpcBody, isJsonRpcFailure, type RequestId } from "./json-rpc-gate";
import { defaultMcpScopes, MCP_SCOPE } from "./scopes";
import { isPostRefusal, type PostRefusal, readPost } from "./streamable-http";
import { registerPrompts } from "./prompts";
import { registerResources } from "./resources";
import { type ToolDefinition, toolCallRequest, toolFor } from "./tools";
import { serveDelete, serveStream, sessionOfPost } from "./sessions/session-http";
import { type McpSessions, registerSubscriptionHandlers } from "./sessions/subscriptions";

// The MCP endpoint: Streamable HTTP. A client that does not initialize is served statelessly (any gateway
// replica, no lookup); one that does gets a session (sessions/: its subscriptions and the GET stream of
// notifications, kept in the edge's store so that any replica can serve its POSTs).
// The `mcp` scope opens the connection; every tool call then runs the same pipeline as REST (scope, role,
// validation, idempotency), with the caller's own credential. One HTTP request counts once against the
// credential's rate limit, before any JSON-RPC handling, whatever it carries.
//
// What can be built once is built at start: the tool definitions (their JSON schemas), one JSON Schema
// validator, and MCP servers with their handlers registered, each connected for good to a transport of
// its own, kept in a pool. A request takes an idle server, hands its transport the POST's messages (the
// SDK's protocol handling answers them: initialize, ping, tools/list, tools/call, errors) and gives the
// server back once every response has come, so JSON-RPC ids of different clients never meet. The HTTP
// side (the Streamable HTTP refusals, 202, the JSON answer) is written here, straight on the Node
// response: the SDK's own transport converted each request to a web Request and back. What belongs to
// the request (the principal, its credential, rate-limit decision and raw tool calls) travels with the
// request itself, as the messages' auth info, never in the server.

export { MCP_SCOPE } from "./scopes";
export const SERVER_INFO = { name: "earshot", version: "2026-08-24" };
const BODY_LIMIT = "1mb";
const CORS_ALLOWED_HEADERS = "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Idempotency-Key";
const CORS_EXPOSED_HEADERS = "WWW-Authenticate, RateLimit, RateLimit-Policy, Retry-After, Mcp-Session-Id";

export interface McpRouteOptions {
  operations: readonly Operation[];
  pipeline: Pipeline;
  logger: Logger;
  /** This resource's identifier, `{origin}/mcp`, used when `origins` is not given. */
  resource: string;
  /** URL of this resource's protected-resource metadata, used when `origins` is not given. */
  resourceMetadataUrl: string;
  /** Which origin each request reached (resource, metadata URL) and which browser origins may call. */
  origins?: PublicOrigins;
  /** When bound to loopback: the only Host values answered (DNS rebinding); any Host when absent. */
  hostNames?: readonly string[];
  /**
   * Sessions (created by initialize), resource subscriptions and the GET stream of notifications. Without
   * them the endpoint is stateless: POST only, GET and DELETE answer 405.
   */
  sessions?: McpSessions;
}

interface PooledServer {
  server: Server;
  transport: JsonExchangeTransport;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Idle servers kept for reuse; more may exist while more requests are in flight. */
const MAX_IDLE_SERVERS = 64;

/** MCP servers answering for this endpoint, built with their handlers once and reused request after request. */
class ServerPool {
  private readonly idle: PooledServer[] = [];
  /** Each tool's definition, built once from the catalog. */
  private readonly tools: Array<{ op: Operation; definition: ToolDefinition }>;
  private readonly byName: Map<string, Operation>;
  /** One validator for every server (the SDK makes one, with its own compiled schemas, per server otherwise). */
  private readonly validator = new AjvJsonSchemaValidator();

  constructor(private readonly options: McpRouteOptions) {
    const tools = options.operations.filter(isTool);
    this.tools = tools.map((op) => ({ op, definition: toolFor(op) }));
    this.byName = new Map(tools.map((op) => [op.name, op]));
  }

  acquire(): PooledServer {
    return this.idle.pop() ?? this.build();
  }

  release(pooled: PooledServer): void {
    if (this.idle.length < MAX_IDLE_SERVERS) this.idle.push(pooled);
  }

  private build(): PooledServer {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false }, prompts: { listChanged: false } },
      instructions:
        "Earshot monitors social mentions. Every tool is one REST operation of /api/v1 with the same input and the same { data, meta } result.",
      jsonSchemaValidator: this.validator,
    });
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      const { principal } = callContextOf(extra.authInfo);
      return { tools: this.tools.filter((t) => principal.scopes.includes(t.op.scope)).map((t) => t.definition) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => this.callTool(request, extra));
    registerResources(server, this.options);
    registerPrompts(server, this.options.operations, () => this.options.pipeline.options.clock.now());
    if (this.options.sessions) registerSubscriptionHandlers(server, { sessions: this.options.sessions, pipeline: this.options.pipeline, operations: this.options.operations });
    const transport = new JsonExchangeTransport();
    // Connecting only installs the server's handlers on the transport (whose start does nothing): done by the time it returns.
    void server.connect(transport);
    return { server, transport };
  }

  private readonly callTool = async (
    request: { params: { name: string; arguments?: Record<string, unknown> | undefined } },
    extra: { requestId: RequestId; authInfo?: AuthInfo | undefined; signal?: AbortSignal },
  ) => {
    const { options } = this;
    const ctx = callContextOf(extra.authInfo);
    // The parameters as the client sent them (the SDK's parsed copy drops keys such as `__proto__`).
    const raw = ctx.toolCalls.get(extra.requestId) ?? { name: request.params.name, arguments: request.params.arguments, paramsIsObject: true };
    if (!raw.paramsIsObject || typeof raw.name !== "string") throw new McpError(ErrorCode.InvalidParams, "params.name must name a tool.");
    if (raw.arguments !== undefined && !isObject(raw.arguments)) throw new McpError(ErrorCode.InvalidParams, "params.arguments must be a JSON object.");
    const op = this.byName.get(raw.name);
    if (!op) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${raw.name}.`);
    // The arguments go to the pipeline unjudged: it refuses a tool the key may not use before looking at them.
    const call = toolCallRequest(op, raw.arguments ?? {}, {
      authorization: ctx.authorization,
      requestId: newId("req"),
      audience: ctx.resource,
      clientAddress: ctx.clientAddress,
      rateLimit: ctx.rateLimit,
    });
    // The SDK aborts the signal when the client cancels the request: a long poll stops waiting then.
    const response = await options.pipeline.execute(op, extra.signal ? { ...call, signal: extra.signal } : call);
    const text = JSON.stringify(response.body);
    if (response.status >= 400) return { isError: true, content: [{ type: "text" as const, text }] };
    ctx.bodies.set(extra.requestId, text);
    return { structuredContent: response.body as Record<string, unknown>, content: [{ type: "text" as const, text }] };
  };
}

const unauthorizedForMcp = () => new DomainError("unauthorized", "A valid Bearer token for this resource is required.");

export const jsonRpcError = (res: ServerResponse, status: number, code: number, message: string) =>
  writeJson(res, status, "application/json", JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));

/** A Streamable HTTP refusal, written as the SDK's transport wrote it. */
const sendRefusal = (res: ServerResponse, refusal: PostRefusal) =>
  void res.writeHead(refusal.status, { "Content-Type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: refusal.code, message: refusal.message }, id: null }));

/**
 * A response as JSON. A tool call's result holds its body twice, as structured content and as the same
 * JSON in text (for clients before structured content); the JSON made for the text is reused for the
 * structured content instead of serializing the body again.
 */
const encodeResponse = (response: JSONRPCMessage, bodies: ReadonlyMap<RequestId, string>): string => {
  if (!("result" in response)) return JSON.stringify(response);
  const text = bodies.get(response.id);
  const { structuredContent, content, ...others } = response.result as { structuredContent?: unknown; content?: unknown };
  const only = Array.isArray(content) && content.length === 1 ? (content[0] as { type?: unknown; text?: unknown }) : undefined;
  const reusable = text !== undefined && structuredContent !== undefined && Object.keys(others).length === 0 && only?.type === "text" && only.text === text && Object.keys(only).length === 2;
  if (!reusable) return JSON.stringify(response);
  return `{"result":{"structuredContent":${text},"content":[{"type":"text","text":${JSON.stringify(text)}}]},"jsonrpc":"2.0","id":${JSON.stringify(response.id)}}`;
};

/** A POST to /mcp as the frame hands it over: its id, the client's address and its parsed JSON body. */
export interface McpPost {
  requestId: string;
  clientAddress: string | undefined;
  body: unknown;
}

export interface McpEndpoint {
  /** Every /mcp route (preflight, CORS, refusals, 405), on express. */
  router: Router;
  /** Answers a POST whose frame (host, origin, CORS, body) has been dealt with, on the Node response. */
  servePost: (req: IncomingMessage, res: ServerResponse, post: McpPost) => Promise<void>;
}

export const mcpRouter = (options: McpRouteOptions): Router => mcpEndpoint(options).router;

export const mcpEndpoint = (options: McpRouteOptions): McpEndpoint => {
  const router = Router();
  const fixedOrigin = new URL(options.resource).origin;
  const origins = options.origins ?? publicOrigins({ publicUrl: fixedOrigin, defaultOrigin: fixedOrigin, port: 0 });
  const scopeHint = defaultMcpScopes(options.operations).join(" ");
  const servers = new ServerPool(options);

  const refuse = (res: ServerResponse, requestId: string, err: DomainError, header: string) => {
    res.setHeader("WWW-Authenticate", header);
    writeProblem(res, toProblem(err, requestId, "/mcp"));
  };

  // A browser page on another origin must not drive a signed-in agent's tools (DNS rebinding, CSRF).
  // Requests without Origin come from non-browser clients and are fine.
  const refuseForeignOrigin = (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get("origin");
    if (origin === undefined || origins.allowsBrowserOrigin(origin)) return next();
    sendProblem(res, toProblem(new DomainError("forbidden", `Requests from the origin ${origin} are not allowed.`, { errors: [{ path: "Origin", message: "is not an allowed origin" }] }), req.requestId, "/mcp"));
  };

  // Browser clients on an allowed origin (EARSHOT_ALLOWED_ORIGINS, Earshot's own) may call /mcp
  // cross-origin: they send Authorization and MCP headers, so they preflight, and read the challenge and
  // the rate-limit headers of the answer. Other origins get no CORS headers and are refused above.
  const cors = (req: Request, res: Response, next: NextFunction) => {
    res.vary("Origin");
    const origin = req.get("origin");
    if (origin !== undefined && origins.allowsBrowserOrigin(origin)) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Access-Control-Expose-Headers", CORS_EXPOSED_HEADERS);
    }
    next();
  };

  const preflight = (req: Request, res: Response) => {
    const methods = options.sessions ? "GET, POST, DELETE" : "POST";
    res.setHeader("Allow", `${methods}, OPTIONS`);
    if (req.get("origin") !== undefined) {
      res.setHeader("Access-Control-Allow-Methods", methods);
      res.setHeader("Access-Control-Allow-Headers", CORS_ALLOWED_HEADERS);
      res.setHeader("Access-Control-Max-Age", "600");
    }
    res.status(204).end();
  };

  // Body parser failures are the client's: malformed JSON is a JSON-RPC parse error, never a 500. Any JSON
  // value parses (not strict), so well-formed JSON that is no JSON-RPC message is the gate's -32600.
  const bodyErrors = (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const e = err as { type?: string; status?: number };
    if (e.type === "entity.too.large") return jsonRpcError(res, 413, ErrorCode.InvalidRequest, `The request body exceeds ${BODY_LIMIT}.`);
    if (e.type === "entity.parse.failed") return jsonRpcError(res, 400, ErrorCode.ParseError, "Parse error: the body is not valid JSON.");
    if (typeof e.status === "number" && e.status >= 400 && e.status < 500) return jsonRpcError(res, e.status, ErrorCode.InvalidRequest, "The request body could not be read.");
    next(err);
  };

  router.use("/mcp", refuseForeignHost(options.hostNames));
  router.use("/mcp", cors);
  router.options("/mcp", refuseForeignOrigin, preflight);
  /**
   * Who calls, or undefined once the refusal is written: a credential for this resource, within its rate
   * limit (`messages` counted), holding the mcp scope. Every method of /mcp passes here first.
   */
  const admit = async (req: IncomingMessage, res: ServerResponse, requestId: string, clientAddress: string | undefined, messages: number) => {
    const origin = origins.of(req);
    const resource = `${origin}/mcp`;
    const metadata = `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;
    const authorization = req.headers.authorization;
    let principal: Principal;
    try {
      principal = await options.pipeline.authenticate(authorization, clientAddress);
    } catch (err) {
      if (!isDomainError(err)) {
        // Not a verdict on the credential (a backend or store failure): the client must keep its token.
        options.logger.error({ err }, "MCP authentication failed");
        return writeProblem(res, toProblem(new DomainError("unavailable", "Authentication could not be completed right now; retry shortly."), requestId, "/mcp"));
      }
      if (err.code !== "unauthorized") return writeProblem(res, toProblem(err, requestId, "/mcp"));
      return refuse(res, requestId, unauthorizedForMcp(), `Bearer ${metadata}, scope="${scopeHint}"${authorization ? `, error="invalid_token"` : ""}`);
    }
    // A token issued for another resource (e.g. the REST API) is not accepted here: no token passthrough.
    if (principal.audience !== undefined && principal.audience !== resource) {
      return refuse(res, requestId, unauthorizedForMcp(), `Bearer ${metadata}, scope="${scopeHint}", error="invalid_token"`);
    }
    const rateLimit = await options.pipeline.options.rateLimiter.take(principal.credentialId, messages);
    for (const [name, value] of Object.entries(rateLimit.headers)) res.setHeader(name, value);
    if (!rateLimit.allowed) {
      const limited = new DomainError("rate_limited", "Too many requests for this credential; retry after the window resets.", { details: { retryAfter: rateLimit.resetSeconds } });
      return writeProblem(res, toProblem(limited, requestId, "/mcp"));
    }
    if (!principal.scopes.includes(MCP_SCOPE)) {
      return refuse(
        res,
        requestId,
        new DomainError("insufficient_scope", "The MCP endpoint needs the mcp scope.", { details: { scope: MCP_SCOPE } }),
        `Bearer error="insufficient_scope", scope="${MCP_SCOPE}", ${metadata}`,
      );
    }
    return { principal, authorization, resource, rateLimit };
  };

  const servePost = async (req: IncomingMessage, res: ServerResponse, { requestId, clientAddress, body }: McpPost): Promise<void> => {
    // A batch is charged per JSON-RPC message: one HTTP request may carry many tool calls.
    const admitted = await admit(req, res, requestId, clientAddress, Array.isArray(body) ? Math.max(1, body.length) : 1);
    if (!admitted) return;
    const { principal, authorization, resource, rateLimit } = admitted;
    const gated = gateJsonRpcBody(body);
    if (isJsonRpcFailure(gated)) return writeJson(res, gated.status, "application/json", JSON.stringify(gated.body));
    const post = readPost(req.headers, gated.body);
    if (isPostRefusal(post)) return sendRefusal(res, post);
    const session = options.sessions ? await sessionOfPost(options.sessions, req.headers, post.messages, principal) : {};
    if ("status" in session) return sendRefusal(res, session);
    if (session.created) res.setHeader("Mcp-Session-Id", session.sessionId as string);
    const ctx: CallContext = {
      principal,
      authorization,
      resource,
      clientAddress,
      rateLimit,
      toolCalls: gated.toolCalls,
      bodies: new Map(),
      ...(session.sessionId ? { sessionId: session.sessionId } : {}),
    };
    const authInfo: AuthInfo = { token: "", clientId: principal.credentialId, scopes: principal.scopes, extra: { earshot: ctx } };
    const pooled = servers.acquire();
    let responses: JSONRPCMessage[];
    try {
      responses = await pooled.transport.exchange(post.messages, { authInfo, requestInfo: { headers: req.headers } });
    } catch (err) {
      // The server is not given back: whatever state it was left in stays out of the pool.
      options.logger.error({ err }, "MCP request failed");
      return void (res.headersSent ? undefined : jsonRpcError(res, 500, ErrorCode.InternalError, "Internal error"));
    }
    // Every response is in, whether or not the client is still there: the server may serve another request.
    servers.release(pooled);
    if (!post.hasRequests) return void res.writeHead(202).end();
    if (res.destroyed) return;
    const json = responses.length === 1 ? encodeResponse(responses[0] as JSONRPCMessage, ctx.bodies) : `[${responses.map((r) => encodeResponse(r, ctx.bodies)).join(",")}]`;
    res.writeHead(200, { "Content-Type": "application/json" }).end(json);
  };
  router.post("/mcp", refuseForeignOrigin, express.json({ limit: BODY_LIMIT, strict: false }), bodyErrors, (req: Request, res: Response) =>
    servePost(req, res, { requestId: req.requestId, clientAddress: req.ip, body: req.body as unknown }),
  );
  const { sessions } = options;
  if (sessions) {
    // The GET stream and DELETE: each request is admitted (and counted) like a POST.
    router.get("/mcp", refuseForeignOrigin, async (req: Request, res: Response, next: NextFunction) => {
      // express routes HEAD here too: a stream without a body would only hold the session's one stream.
      if (req.method === "HEAD") return next();
      const admitted = await admit(req, res, req.requestId, req.ip, 1);
      if (!admitted) return;
      await serveStream(sessions, req, res, admitted.principal, { authorization: admitted.authorization ?? "", audience: admitted.resource, clientAddress: req.ip });
    });
    router.delete("/mcp", refuseForeignOrigin, async (req: Request, res: Response) => {
      const admitted = await admit(req, res, req.requestId, req.ip, 1);
      if (admitted) await serveDelete(sessions, req, res, admitted.principal);
    });
  }
  // Without sessions no server-initiated stream and no session to delete; other methods never.
  router.all("/mcp", (_req, res) => {
    res.setHeader("Allow", "POST");
    jsonRpcError(res, 405, ErrorCode.ConnectionClosed, "Method not allowed: POST only.");
  });
  return { router, servePost };
};
