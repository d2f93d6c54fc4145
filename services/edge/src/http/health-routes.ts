import { Router } from "express";
import type { Backends } from "../backends";
import type { HttpMetrics } from "./metrics";

/** `/healthz`: the process is up. `/readyz`: every service it calls answers its gRPC health check. */
export const healthRoutes = (backends: Backends, metrics: HttpMetrics, isDraining: () => boolean): Router => {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const services = await Promise.all(
      backends.health.map(async (h) => ({ name: h.name, address: h.address, status: await h.checker.check("", 1000) })),
    );
    const ready = !isDraining() && services.every((s) => s.status === "SERVING");
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : isDraining() ? "draining" : "not_ready", services });
  });
  router.get("/metrics", async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
};
