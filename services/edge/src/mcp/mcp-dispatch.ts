import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { type Logger, runWithRequestId } from "@earshot/platform";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import proxyAddr from "proxy-addr";
import { clientErrorProblem } from "../http/client-errors";
import type { HeaderList } from "../http/frame-headers";
import type { HttpMetrics } from "../http/metrics";
import { toProblem, writeProblem } from "../http/problem";
import { API_VERSION, requestIdOf } from "../http/request-context";
import { knownHost } from "./host-gate";
import { jsonRpcError, type McpEndpoint } from "./mcp-route";

// POST /mcp answered without express, as the API dispatch answers the REST reads: through express a
// tool call walked the app's whole chain (request context, metrics, frame headers, health, the OAuth
// routes, the MCP router's host gate, CORS and JSON parser) before reaching the same handler. Here the
// frame is written from the same list, the body read and parsed as express's JSON parser reads it, and
// the POST handed to the MCP endpoint's own `servePost`, the function the express route calls too.
//
// It takes only the plain case an agent sends: a POST to `/mcp` on a known Host, without `Origin` (no
// browser: no CORS to answer), with a JSON body (`application/json`, UTF-8, no content coding) of a
// declared length within the limit. Everything else (preflights, browser origins, foreign hosts, other
// media types, chunked or oversized bodies, other methods) goes on to express, which stays the one
// authority on those refusals.

/** express.json's "1mb". */
const BODY_LIMIT_BYTES = 1024 * 1024;
const JSON_TYPES = new Set(["application/json", "application/json;charset=utf-8"]);

export interface McpDispatchOptions {
  servePost: McpEndpoint["servePost"];
  hostNames?: readonly string[];
  frame: HeaderList;
  metrics: HttpMetrics;
  logger: Logger;
  trustProxy: (addr: string, i: number) => boolean;
}

const isMcpPath = (url: string): boolean => url === "/mcp" || url.startsWith("/mcp?");

const isPlainJson = (type: string | undefined): boolean => type !== undefined && JSON_TYPES.has(type.toLowerCase().replace(/\s+/g, ""));

/** The body as express's JSON parser reads it (UTF-8, a byte order mark dropped, any JSON value), or undefined when it is no JSON. */
const parseBody = (raw: Buffer): { value: unknown } | undefined => {
  let text = raw.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
};

export const mcpDispatch = (options: McpDispatchOptions, next: RequestListener): RequestListener => {
  const isKnownHost = knownHost(options.hostNames);
  const fixed: Array<readonly [string, string]> = [["Earshot-Version", API_VERSION], ...options.frame, ["Vary", "Origin"]];

  const serve = async (req: IncomingMessage, res: ServerResponse, raw: Buffer, since: number): Promise<void> => {
    const requestId = requestIdOf(req);
    res.setHeader("X-Request-Id", requestId);
    for (const [name, value] of fixed) res.setHeader(name, value);
    try {
      const body = parseBody(raw);
      if (!body) jsonRpcError(res, 400, ErrorCode.ParseError, "Parse error: the body is not valid JSON.");
      else await runWithRequestId(requestId, () => options.servePost(req, res, { requestId, clientAddress: proxyAddr(req, options.trustProxy), body: body.value }));
    } catch (err) {
      // As express's error handler answers what escapes a route.
      const problem = clientErrorProblem(err, requestId, "/mcp") ?? toProblem(err, requestId, "/mcp");
      if (problem.status >= 500) options.logger.error({ err, path: "/mcp" }, "request failed");
      if (!res.headersSent) writeProblem(res, problem);
      else res.destroy(err instanceof Error ? err : new Error(String(err)));
    }
    options.metrics.observe("POST", "/mcp", res.statusCode, since);
  };

  return (req, res) => {
    const h = req.headers;
    if (req.method !== "POST" || !isMcpPath(req.url ?? "") || h.origin !== undefined || !isKnownHost(h.host)) return next(req, res);
    if (h["transfer-encoding"] !== undefined || h["content-encoding"] !== undefined || !isPlainJson(h["content-type"])) return next(req, res);
    const length = Number(h["content-length"]);
    if (!Number.isSafeInteger(length) || length <= 0 || length > BODY_LIMIT_BYTES) return next(req, res);
    const since = performance.now();
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      serve(req, res, Buffer.concat(chunks), since).catch((err: unknown) => {
        options.logger.error({ err, path: "/mcp" }, "request failed");
        res.destroy();
      });
    });
  };
};
