import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { runWithRequestId, type Logger } from "@earshot/platform";
import accepts from "accepts";
import proxyAddr from "proxy-addr";
import type { Operation } from "../catalog/operation";
import { listQueryParameters } from "../docs/openapi";
import { clientErrorProblem } from "../http/client-errors";
import type { HeaderList } from "../http/frame-headers";
import type { HttpMetrics } from "../http/metrics";
import { toProblem } from "../http/problem";
import { API_VERSION, requestIdOf } from "../http/request-context";
import type { OperationResponse, Pipeline } from "../pipeline/execute";
import { carriesBody } from "./body";
import { queryFields, routeOrder } from "./router";

// The REST API's reads answered without express. A read through express walks the app's whole middleware
// chain (request context, metrics, helmet, CSP, health, the OAuth and MCP routers, the JSON body parser,
// the route groups) before it reaches its route, and each step sets its headers one call at a time: after
// the in-process calls, that frame was half of a project read's processor time. This dispatch matches the
// request against the catalog's paths once, in the order express tries them, and writes the same answer
// (the same headers, the same body, the same problem for the same failure) in one `writeHead`.
//
// It takes only what it answers exactly as express would: a GET of an operation that is not a download,
// at the path as the catalog spells it (no trailing slash, literal segments in their case), carrying no
// body, with parameters that decode. Anything else (writes, HEAD, a 405, an unknown path, a path a
// parameter cannot decode, a download, a body on a GET) goes on to express, which stays the one
// authority on those. A test sends the same requests both ways and compares the answers.

const PREFIX = "/api/v1";

interface Route {
  segments: ReadonlyArray<{ literal: string } | { param: string }>;
  /** The GET operation answered here, or undefined when express must answer (no GET, or a download). */
  get: Operation | undefined;
  lists: ReadonlySet<string>;
  /** The pattern the HTTP metrics name it by, as express's route gives it. */
  route: string;
}

export interface ApiDispatchOptions {
  operations: readonly Operation[];
  pipeline: Pipeline;
  audienceOf: (req: IncomingMessage) => string;
  /** The headers every answer carries (see frame-headers). */
  frame: HeaderList;
  metrics: HttpMetrics;
  logger: Logger;
  /** express's compiled "trust proxy" and "query parser", so the client's address and the query are read alike. */
  trustProxy: (addr: string, i: number) => boolean;
  parseQuery: (query: string) => Record<string, unknown>;
}

const compile = (operations: readonly Operation[]): Route[] => {
  const byPath = new Map<string, Operation[]>();
  for (const op of operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  return routeOrder([...byPath.keys()]).map((path) => {
    const get = byPath.get(path)!.find((op) => op.method === "GET" && !op.download);
    return {
      segments: path
        .split("/")
        .slice(1)
        .map((s) => (s.startsWith(":") ? { param: s.slice(1) } : { literal: s })),
      get,
      lists: get ? listQueryParameters(get) : new Set<string>(),
      route: `${PREFIX}${path}`,
    };
  });
};

type Match = { route: Route; params: Record<string, string> } | "express";

/**
 * The route express would take for `segments` (the path after the prefix, split), with its decoded
 * parameters; "express" when the first route matching is not one answered here, when a parameter does
 * not decode, or when nothing matches exactly (express may still match it loosely, or answer 404 / 405).
 */
const matchRoute = (routes: readonly Route[], segments: string[]): Match => {
  for (const route of routes) {
    if (route.segments.length !== segments.length) continue;
    let ok = true;
    for (let i = 0; i < segments.length && ok; i++) {
      const want = route.segments[i]!;
      const got = segments[i]!;
      ok = "literal" in want ? want.literal === got : got.length > 0;
    }
    if (!ok) continue;
    if (!route.get) return "express";
    const params: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const want = route.segments[i]!;
      if ("param" in want) {
        try {
          params[want.param] = decodeURIComponent(segments[i]!);
        } catch {
          return "express";
        }
      }
    }
    return { route, params };
  }
  return "express";
};

/** Statuses whose answers carry no body (express's `send` drops it and its headers). */
const BODILESS = new Set([204, 205, 304]);

/**
 * Writes an answer the way the express chain does: the request's id and the API version, the frame's
 * headers, `Cache-Control: no-store`, the operation's headers (overriding any of the above they name),
 * then the JSON body's type (with its charset, as express adds it) and length.
 */
const writeAnswer = (res: ServerResponse, fixed: ReadonlyArray<readonly [string, string]>, requestId: string, response: OperationResponse, retryAfter?: string): void => {
  const headers = new Map<string, [string, string]>();
  headers.set("x-request-id", ["X-Request-Id", requestId]);
  for (const [name, value] of fixed) headers.set(name.toLowerCase(), [name, value]);
  for (const [name, value] of Object.entries(response.headers)) headers.set(name.toLowerCase(), [name, value]);
  if (retryAfter !== undefined) headers.set("retry-after", ["Retry-After", retryAfter]);
  const flat: string[] = [];
  let body = "";
  if (BODILESS.has(response.status)) {
    headers.delete("content-type");
    headers.delete("transfer-encoding");
    headers.delete("content-length");
    if (response.status === 205) headers.set("content-length", ["Content-Length", "0"]);
  } else {
    body = JSON.stringify(response.body);
    const type = response.status >= 400 ? "application/problem+json; charset=utf-8" : "application/json; charset=utf-8";
    headers.set("content-type", ["Content-Type", type]);
    headers.set("content-length", ["Content-Length", String(Buffer.byteLength(body))]);
  }
  for (const [name, value] of headers.values()) flat.push(name, value);
  res.writeHead(response.status, flat);
  res.end(body);
};

/**
 * A request listener for the API's reads that calls `next` (express) for every request it does not
 * answer itself (see above).
 */
export const apiDispatch = (options: ApiDispatchOptions, next: RequestListener): RequestListener => {
  const routes = compile(options.operations);
  const fixed: Array<readonly [string, string]> = [["Earshot-Version", API_VERSION], ...options.frame, ["Cache-Control", "no-store"]];

  const answer = async (req: IncomingMessage, res: ServerResponse, match: { route: Route; params: Record<string, string> }, pathname: string, query: string, since: number) => {
    const requestId = requestIdOf(req);
    const op = match.route.get!;
    // A client that goes away before the answer ends a long poll's wait (and frees its slot) at once.
    const gone = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    let response: OperationResponse;
    try {
      response = await runWithRequestId(requestId, () =>
        options.pipeline.execute(op, {
          requestId,
          authorization: req.headers.authorization,
          idempotencyKey: headerValue(req.headers["idempotency-key"]),
          concretePath: pathname,
          audience: options.audienceOf(req),
          clientAddress: proxyAddr(req, options.trustProxy),
          path: match.params,
          query: queryFields(options.parseQuery(query), match.route.lists),
          body: undefined,
          accepts: (mediaTypes) => accepts(req).types(mediaTypes) as string | false,
          signal: gone.signal,
        }),
      );
    } catch (err) {
      // The pipeline answers its own failures as problems; anything escaping it is the frame's, answered as
      // express's error handler would.
      const problem = clientErrorProblem(err, requestId, pathname) ?? toProblem(err, requestId, pathname);
      if (problem.status >= 500) options.logger.error({ err, path: pathname }, "request failed");
      response = { status: problem.status, body: problem, headers: {} };
      const retryAfter = problem.code === "rate_limited" && typeof problem.retryAfter === "number" ? String(problem.retryAfter) : undefined;
      writeAnswer(res, fixed, requestId, response, retryAfter);
      options.metrics.observe("GET", match.route.route, response.status, since);
      return;
    }
    writeAnswer(res, fixed, requestId, response);
    options.metrics.observe("GET", match.route.route, response.status, since);
  };

  return (req, res) => {
    const url = req.url ?? "";
    if (req.method !== "GET" || !url.startsWith(`${PREFIX}/`) || carriesBody(req)) return next(req, res);
    const q = url.indexOf("?");
    const pathname = q === -1 ? url : url.slice(0, q);
    const match = matchRoute(routes, pathname.slice(PREFIX.length + 1).split("/"));
    if (match === "express") return next(req, res);
    answer(req, res, match, pathname, q === -1 ? "" : url.slice(q + 1), performance.now()).catch((err: unknown) => {
      // Only writing the answer can fail here (the pipeline's own failures are answered above).
      options.logger.error({ err, path: pathname }, "request failed");
      if (!res.headersSent) {
        const requestId = requestIdOf(req);
        writeAnswer(res, fixed, requestId, { status: 500, body: toProblem(err, requestId, pathname), headers: {} });
      } else res.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  };
};

const headerValue = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(", ") : v);
