import { Router } from "express";
import type { Backends } from "../backends";
import type { HttpMetrics } from "./metrics";

// Health on the public port says only how the process is: the services behind it and their addresses are
// internal. The per-service detail and the metrics are served on the admin port (adminRoutes), which
// operators expose to their scraper and probes only.

const readiness = async (backends: Backends, isDraining: () => boolean) => {
  const services = await Promise.all(
    backends.health.map(async (h) => ({ name: h.name, address: h.address, status: await h.checker.check("", 1000) })),
  );
  const ready = !isDraining() && services.every((s) => s.status === "SERVING");
  return { ready, status: ready ? "ready" : isDraining() ? "draining" : "not_ready", services };
};

/** `/healthz`: the process is up. `/readyz`: every service it calls answers its gRPC health check. */
export const healthRoutes = (backends: Backends, isDraining: () => boolean): Router => {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const { ready, status } = await readiness(backends, isDraining);
    res.status(ready ? 200 : 503).json({ status });
  });
  return router;
};

/** The admin port: `/metrics` (Prometheus), `/readyz` naming each service, `/healthz`. */
export const adminRoutes = (backends: Backends, metrics: HttpMetrics, isDraining: () => boolean): Router => {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const { ready, status, services } = await readiness(backends, isDraining);
    res.status(ready ? 200 : 503).json({ status, services });
  });
  router.get("/metrics", async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
};
