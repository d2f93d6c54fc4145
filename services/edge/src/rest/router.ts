import type { Logger } from "@earshot/platform";
import express, { type Request, type Response, Router } from "express";
import { type Operation } from "../catalog/operation";
import { listQueryParameters } from "../docs/openapi";
import { httpProblem, sendProblem, toProblem } from "../http/problem";
import type { OperationResponse, Pipeline } from "../pipeline/execute";
import { checkBodyMediaType, JSON_MEDIA_TYPES, queryWithBodyFields } from "./body";

// REST routes generated from the catalog: one express route per operation under /api/v1.

export const writeOperationResponse = (res: Response, response: OperationResponse): void => {
  for (const [k, v] of Object.entries(response.headers)) res.setHeader(k, v);
  const isProblem = response.status >= 400;
  res.status(response.status).type(isProblem ? "application/problem+json" : "application/json").send(JSON.stringify(response.body));
};

/** Resolves once the socket took what was written, or the client went away. */
const drained = (res: Response) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });

/**
 * Writes a download as its pieces come, asking for the next only once the socket has taken the last
 * (backpressure), so the producer holds one piece at a time. A failure before anything was sent is an
 * ordinary problem; after, the connection is destroyed so the client sees a cut-off body, never a
 * complete-looking one, and the failure is logged.
 */
export const writeStreamResponse = async (
  req: Request,
  res: Response,
  response: OperationResponse & { stream: AsyncIterable<string> },
  logger: Logger,
): Promise<void> => {
  const pieces = response.stream[Symbol.asyncIterator]();
  let started = false;
  try {
    for (;;) {
      // A client that went away stops the export: no further page is read for nobody.
      if (res.destroyed) {
        await pieces.return?.();
        return;
      }
      const next = await pieces.next();
      if (next.done) break;
      if (!started) {
        for (const [k, v] of Object.entries(response.headers)) res.setHeader(k, v);
        res.status(response.status);
        started = true;
      }
      if (!res.write(next.value)) await drained(res);
    }
    if (!started) {
      for (const [k, v] of Object.entries(response.headers)) res.setHeader(k, v);
      res.status(response.status);
    }
    res.end();
  } catch (err) {
    logger.error({ err, path: req.originalUrl.split("?")[0] }, started ? "download failed after it began; connection closed" : "download failed");
    if (!started && !res.headersSent) {
      for (const [k, v] of Object.entries(response.headers)) if (!/^content-(type|disposition)$/i.test(k)) res.setHeader(k, v);
      sendProblem(res, toProblem(err, req.requestId, req.originalUrl.split("?")[0]));
    } else {
      res.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  }
};

/** The path a request named, as sent (not decoded), without its query. */
const pathnameOf = (url: string): string => {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
};

/**
 * The query as the REST routes read it: repeated parameters arrive as arrays; a list parameter keeps them
 * all, any other takes one value, the last.
 */
export const queryFields = (parsed: Record<string, unknown>, lists: ReadonlySet<string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parsed)) out[k] = Array.isArray(v) && !lists.has(k) ? v[v.length - 1] : v;
  return out;
};

/**
 * Paths in the order express must try them: where two paths' segments first differ in kind, the literal
 * before the parameter, so `/mentions/export` is never taken as `/mentions/:mentionId` (paths of
 * different lengths never match one URL; their order is only made total). Paths of one shape keep
 * their catalog order.
 */
export const routeOrder = (paths: readonly string[]): string[] => {
  const shape = (path: string) => path.split("/").map((segment) => (segment.startsWith(":") ? 1 : 0));
  const compare = (a: string, b: string) => {
    const [x, y] = [shape(a), shape(b)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  return [...paths].sort(compare);
};

/** `audienceOf` names the resource a request reached (`{origin}/api/v1`): OAuth tokens must be issued for it. */
export const restRouter = (operations: readonly Operation[], pipeline: Pipeline, audienceOf: (req: Request) => string): Router => {
  const router = Router();
  // Answers are per credential and may carry secrets (a new key's plaintext): no cache keeps them.
  router.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  router.use(express.json({ limit: "1mb", type: JSON_MEDIA_TYPES }));
  const byPath = new Map<string, Operation[]>();
  for (const op of operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  // express tries a router's routes one after the other: the routes are grouped in one router per first
  // path segment (`/projects`, `/mentions`, ...), so a request walks only its own group's routes.
  const groups = new Map<string, Router>();
  const groupOf = (path: string): { group: Router; local: string } => {
    const first = /^\/([^/:]+)(\/.*)?$/.exec(path);
    if (!first) return { group: router, local: path };
    const prefix = `/${first[1]}`;
    let group = groups.get(prefix);
    if (!group) {
      group = Router();
      groups.set(prefix, group);
      router.use(prefix, group);
    }
    return { group, local: first[2] ?? "/" };
  };
  for (const path of routeOrder([...byPath.keys()])) {
    const ops = byPath.get(path)!;
    const { group, local } = groupOf(path);
    for (const op of ops) {
      const method = op.method.toLowerCase() as "get" | "post" | "patch" | "put" | "delete";
      const lists = listQueryParameters(op);
      group[method](local, async (req: Request, res: Response) => {
        checkBodyMediaType(op, req);
        // A client that goes away before the answer ends a long poll's wait (and frees its slot) at once.
        const gone = new AbortController();
        res.on("close", () => {
          if (!res.writableFinished) gone.abort();
        });
        const response = await pipeline.execute(op, {
          requestId: req.requestId,
          authorization: req.get("authorization"),
          idempotencyKey: req.get("idempotency-key"),
          concretePath: pathnameOf(req.originalUrl),
          audience: audienceOf(req),
          clientAddress: req.ip,
          path: { ...req.params },
          query: queryWithBodyFields(op, queryFields(req.query, lists), req.body),
          body: op.input.body ? (req.body ?? {}) : undefined,
          accepts: (mediaTypes) => req.accepts(mediaTypes),
          signal: gone.signal,
        });
        if (response.stream) await writeStreamResponse(req, res, { ...response, stream: response.stream }, pipeline.options.logger);
        else writeOperationResponse(res, response);
      });
    }
    // The path asked with a method it does not have: 405 naming the methods it has (right after its own
    // routes, so a more general path further on never takes it).
    const allow = [...new Set(ops.map((o) => o.method))].join(", ");
    group.all(local, (req: Request, res: Response) => {
      res.setHeader("Allow", allow);
      sendProblem(res, httpProblem("method_not_allowed", `${req.method} is not allowed here; use ${allow}.`, req.requestId, req.originalUrl.split("?")[0]));
    });
  }
  return router;
};
