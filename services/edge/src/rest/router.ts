import express, { type Request, type Response, Router } from "express";
import { type Operation } from "../catalog/operation";
import { httpProblem, sendProblem } from "../http/problem";
import type { OperationResponse, Pipeline } from "../pipeline/execute";

// REST routes generated from the catalog: one express route per operation under /api/v1.

export const writeOperationResponse = (res: Response, response: OperationResponse): void => {
  for (const [k, v] of Object.entries(response.headers)) res.setHeader(k, v);
  const isProblem = response.status >= 400;
  res.status(response.status).type(isProblem ? "application/problem+json" : "application/json").send(JSON.stringify(response.body));
};

const queryOf = (req: Request): Record<string, unknown> => {
  // Repeated parameters arrive as arrays; operations take one value each, so the last one wins.
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req.query)) out[k] = Array.isArray(v) ? v[v.length - 1] : v;
  return out;
};

/** `audienceOf` names the resource a request reached (`{origin}/api/v1`): OAuth tokens must be issued for it. */
export const restRouter = (operations: readonly Operation[], pipeline: Pipeline, audienceOf: (req: Request) => string): Router => {
  const router = Router();
  // Answers are per credential and may carry secrets (a new key's plaintext): no cache keeps them.
  router.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  router.use(express.json({ limit: "1mb", type: ["application/json", "application/*+json"] }));
  for (const op of operations) {
    const method = op.method.toLowerCase() as "get" | "post" | "patch" | "put" | "delete";
    router[method](op.path, async (req: Request, res: Response) => {
      const response = await pipeline.execute(op, {
        requestId: req.requestId,
        authorization: req.get("authorization"),
        idempotencyKey: req.get("idempotency-key"),
        concretePath: req.baseUrl + req.path,
        audience: audienceOf(req),
        clientAddress: req.ip,
        path: { ...req.params },
        query: queryOf(req),
        body: op.input.body ? (req.body ?? {}) : undefined,
      });
      writeOperationResponse(res, response);
    });
  }
  // A known path asked with a method it does not have: 405 naming the methods it has (after every
  // operation's route, so only the methods no operation took get here).
  const methodsByPath = new Map<string, string[]>();
  for (const op of operations) methodsByPath.set(op.path, [...(methodsByPath.get(op.path) ?? []), op.method]);
  for (const [path, methods] of methodsByPath) {
    const allow = [...new Set(methods)].join(", ");
    router.all(path, (req: Request, res: Response) => {
      res.setHeader("Allow", allow);
      sendProblem(res, httpProblem("method_not_allowed", `${req.method} is not allowed here; use ${allow}.`, req.requestId, req.originalUrl.split("?")[0]));
    });
  }
  return router;
};
