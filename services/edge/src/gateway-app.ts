import { DomainError, type Logger } from "@earshot/platform";
import type { IncomingMessage, RequestListener } from "node:http";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { Backends } from "./backends";
import { PAGES } from "./catalog";
import type { Operation } from "./catalog/operation";
import { buildOpenApi } from "./docs/openapi";
import { REFERENCE_PAGE_CSP, renderReferencePage } from "./docs/reference-page";
import { frameHeaders, frameHeadersMiddleware } from "./http/frame-headers";
import { healthRoutes } from "./http/health-routes";
import { clientErrorProblem } from "./http/client-errors";
import { createHttpMetrics, type HttpMetrics } from "./http/metrics";
import { sendProblem, toProblem } from "./http/problem";
import { requestContext } from "./http/request-context";
import { mcpDispatch } from "./mcp/mcp-dispatch";
import { type McpEndpoint, mcpEndpoint } from "./mcp/mcp-route";
import type { McpSessions } from "./mcp/sessions/subscriptions";
import type { PublicOrigins } from "./oauth/public-origins";
import { DashboardState, loadPublicFace } from "./catalog/public-dashboard/dashboard-state";
import type { Page, PageDeps } from "./pages/page";
import { pageRoutes } from "./pages/routes";
import type { Pipeline } from "./pipeline/execute";
import { apiDispatch } from "./rest/api-dispatch";
import { restRouter } from "./rest/router";

export interface GatewayAppOptions {
  backends: Backends;
  pipeline: Pipeline;
  operations: readonly Operation[];
  /** The browser pages served with the REST surface (default: the catalog's PAGES). */
  pages?: readonly Page[];
  logger: Logger;
  publicUrl: string;
  isDraining?: () => boolean;
  /** Which surfaces this process serves: the REST gateway, the MCP gateway, or both (all-in-one). */
  surfaces: { rest: boolean; mcp: boolean };
  /** The OAuth authorization server's routes (metadata, endpoints, sign-in and consent pages). */
  oauth?: Router;
  /** The web app under /app (sessions, sign-in, the signed-in pages); after the pages, so a page of PAGES under /app answers first. */
  web?: Router;
  /** Starts a web app session (the invitation page signs the new member in). */
  appSignIn?: PageDeps["appSignIn"];
  /** The HTTP metrics this app records (served on the admin port); a fresh registry when absent. */
  metrics?: HttpMetrics;
  /** express "trust proxy": only these proxies may name the client address (per-IP limits rely on it). */
  trustProxy: false | number | string;
  /** The origin each request reached and the browser origins allowed to call MCP (default: publicUrl only). */
  publicOrigins?: PublicOrigins;
  /** Bound to loopback: the only Host values /mcp answers (DNS rebinding protection); any when absent. */
  mcpHostNames?: readonly string[];
  /** MCP sessions, subscriptions and streams; without them /mcp is stateless (POST only). */
  mcpSessions?: McpSessions;
  /** Public dashboards' state and budget (default: state read again after 1 s, no budget). */
  dashboards?: PageDeps["dashboards"];
  /**
   * Whether the API's reads (rest/api-dispatch) and plain MCP POSTs (mcp/mcp-dispatch) are answered ahead
   * of express; default true. Off, the one express chain answers everything.
   */
  apiDispatch?: boolean;
}

/**
 * The public app: the express frame (ids, metrics, health, errors) around the catalog's routes, the OAuth
 * server, MCP and the pages, with the API's reads and plain MCP POSTs answered ahead of it (rest/api-dispatch,
 * mcp/mcp-dispatch).
 */
export const createGatewayApp = (options: GatewayAppOptions): RequestListener => {
  const app = express();
  const metrics = options.metrics ?? createHttpMetrics();
  const frame = frameHeaders();
  app.disable("x-powered-by");
  app.set("trust proxy", options.trustProxy);
  app.set("etag", false);
  app.use(requestContext);
  app.use(metrics.middleware);
  app.use(frameHeadersMiddleware(frame));
  app.use(healthRoutes(options.isDraining ?? (() => false)));

  const openApi = JSON.stringify(buildOpenApi(options.operations, `${options.publicUrl}/api/v1`));
  const reference = renderReferencePage(options.operations);
  if (options.oauth) app.use(options.oauth);
  let mcp: McpEndpoint | undefined;
  if (options.surfaces.mcp) {
    mcp = mcpEndpoint({
      operations: options.operations,
      pipeline: options.pipeline,
      logger: options.logger,
      resource: `${options.publicUrl}/mcp`,
      resourceMetadataUrl: `${options.publicUrl}/.well-known/oauth-protected-resource/mcp`,
      ...(options.publicOrigins ? { origins: options.publicOrigins } : {}),
      ...(options.mcpHostNames ? { hostNames: options.mcpHostNames } : {}),
      ...(options.mcpSessions ? { sessions: options.mcpSessions } : {}),
    });
    app.use(mcp.router);
  }
  const audienceOf = (req: IncomingMessage) => `${options.publicOrigins?.of(req) ?? options.publicUrl}/api/v1`;
  if (options.surfaces.rest) {
    app.get("/api/v1/openapi.json", (_req, res) => void res.type("application/json").send(openApi));
    app.get("/docs", (_req, res) => void res.setHeader("Content-Security-Policy", REFERENCE_PAGE_CSP).type("html").send(reference));
    app.use("/api/v1", restRouter(options.operations, options.pipeline, audienceOf));
    app.use(
      pageRoutes(options.pages ?? PAGES, {
        backends: options.backends,
        logger: options.logger,
        publicUrl: options.publicUrl,
        secureCookies: options.publicUrl.startsWith("https:"),
        dashboards: options.dashboards ?? { state: new DashboardState({ load: loadPublicFace(options.backends.project), maxAgeMs: 1000 }) },
        ...(options.appSignIn ? { appSignIn: options.appSignIn } : {}),
      }),
    );
    if (options.web) app.use(options.web);
  }

  app.use((req: Request, res: Response) => {
    sendProblem(res, toProblem(new DomainError("not_found", `No route for ${req.method} ${req.path}.`), req.requestId, req.path));
  });
  // Anything thrown outside the pipeline becomes problem+json: the frame's 4xx errors (bodies and paths it
  // cannot decode) keep their status; anything else is a 500 whose details are logged only.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const problem = clientErrorProblem(err, req.requestId, req.path) ?? toProblem(err, req.requestId, req.path);
    if (problem.status >= 500) options.logger.error({ err, path: req.path }, "request failed");
    sendProblem(res, problem);
  });
  if (options.apiDispatch === false) return app;
  const trustProxy = app.get("trust proxy fn") as (addr: string, i: number) => boolean;
  const rest: RequestListener = !options.surfaces.rest
    ? app
    : apiDispatch(
        {
          operations: options.operations,
          pipeline: options.pipeline,
          audienceOf,
          frame,
          metrics,
          logger: options.logger,
          trustProxy,
          parseQuery: app.get("query parser fn") as (query: string) => Record<string, unknown>,
        },
        app,
      );
  if (!mcp) return rest;
  return mcpDispatch({ servePost: mcp.servePost, ...(options.mcpHostNames ? { hostNames: options.mcpHostNames } : {}), frame, metrics, logger: options.logger, trustProxy }, rest);
};
