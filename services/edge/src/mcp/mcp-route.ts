import { DomainError, isDomainError, type Logger, newId } from "@earshot/platform";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import express, { type Request, type Response, Router } from "express";
import type { Operation } from "../catalog/operation";
import { sendProblem, toProblem } from "../http/problem";
import type { Pipeline } from "../pipeline/execute";
import type { Principal } from "../pipeline/principal";
import { toolCallRequest, toolFor } from "./tools";

// The MCP endpoint: Streamable HTTP, stateless (a server per request, so any gateway replica can serve
// any request). The `mcp` scope opens the connection; every tool call then runs the same pipeline as
// REST (scope, role, validation, idempotency, rate limit), with the caller's own credential.

export const MCP_SCOPE = "mcp";
export const SERVER_INFO = { name: "earshot", version: "2026-08-24" };

export interface McpRouteOptions {
  operations: readonly Operation[];
  pipeline: Pipeline;
  logger: Logger;
  /** This resource's identifier, `{origin}/mcp`: OAuth tokens must name it as their audience. */
  resource: string;
  /** URL of this resource's protected-resource metadata, for WWW-Authenticate. */
  resourceMetadataUrl: string;
}

const buildServer = (options: McpRouteOptions, principal: Principal, authorization: string | undefined): Server => {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions:
      "Earshot monitors social mentions. Every tool is one REST operation of /api/v1 with the same input and the same { data, meta } result.",
  });
  const allowed = options.operations.filter((op) => principal.scopes.includes(op.scope));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: allowed.map(toolFor) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const op = options.operations.find((o) => o.name === request.params.name);
    if (!op) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}.`);
    const response = await options.pipeline.execute(op, toolCallRequest(op, request.params.arguments ?? {}, authorization, newId("req"), options.resource));
    const text = JSON.stringify(response.body);
    if (response.status >= 400) return { isError: true, content: [{ type: "text", text }] };
    return { structuredContent: response.body as Record<string, unknown>, content: [{ type: "text", text }] };
  });
  return server;
};

const unauthorizedForMcp = () => new DomainError("unauthorized", "A valid Bearer token for this resource is required.");

export const mcpRouter = (options: McpRouteOptions): Router => {
  const router = Router();
  const challenge = (extra = "") => `Bearer resource_metadata="${options.resourceMetadataUrl}"${extra}`;

  const refuse = (req: Request, res: Response, err: DomainError, header: string) => {
    res.setHeader("WWW-Authenticate", header);
    sendProblem(res, toProblem(err, req.requestId, "/mcp"));
  };

  router.post("/mcp", express.json({ limit: "1mb" }), async (req: Request, res: Response) => {
    const authorization = req.get("authorization");
    let principal: Principal;
    try {
      principal = await options.pipeline.authenticate(authorization);
    } catch (err) {
      if (isDomainError(err) && err.code !== "unauthorized") return sendProblem(res, toProblem(err, req.requestId, "/mcp"));
      return refuse(req, res, unauthorizedForMcp(), challenge(authorization ? `, error="invalid_token"` : ""));
    }
    // A token issued for another resource (e.g. the REST API) is not accepted here: no token passthrough.
    if (principal.audience !== undefined && principal.audience !== options.resource) {
      return refuse(req, res, unauthorizedForMcp(), challenge(`, error="invalid_token"`));
    }
    if (!principal.scopes.includes(MCP_SCOPE)) {
      return refuse(
        req,
        res,
        new DomainError("insufficient_scope", "The MCP endpoint needs the mcp scope.", { details: { scope: MCP_SCOPE } }),
        challenge(`, error="insufficient_scope", scope="${MCP_SCOPE}"`),
      );
    }
    const server = buildServer(options, principal, authorization);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      options.logger.error({ err }, "MCP request failed");
      if (!res.headersSent) res.status(500).json({ jsonrpc: "2.0", error: { code: ErrorCode.InternalError, message: "Internal error" }, id: null });
    }
  });
  // Stateless: no server-initiated stream and no session to delete.
  router.all("/mcp", (_req, res) => {
    res.setHeader("Allow", "POST");
    res.status(405).json({ jsonrpc: "2.0", error: { code: ErrorCode.ConnectionClosed, message: "Method not allowed: POST only." }, id: null });
  });
  return router;
};
