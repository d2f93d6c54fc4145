import express, { type Request, type Response, Router } from "express";
import { type Operation } from "../catalog/operation";
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

export const restRouter = (operations: readonly Operation[], pipeline: Pipeline, audience: string): Router => {
  const router = Router();
  router.use(express.json({ limit: "1mb", type: ["application/json", "application/*+json"] }));
  for (const op of operations) {
    const method = op.method.toLowerCase() as "get" | "post" | "patch" | "put" | "delete";
    router[method](op.path, async (req: Request, res: Response) => {
      const response = await pipeline.execute(op, {
        requestId: req.requestId,
        authorization: req.get("authorization"),
        idempotencyKey: req.get("idempotency-key"),
        concretePath: req.baseUrl + req.path,
        audience,
        clientAddress: req.ip,
        path: { ...req.params },
        query: queryOf(req),
        body: op.input.body ? (req.body ?? {}) : undefined,
      });
      writeOperationResponse(res, response);
    });
  }
  return router;
};
