import { Router } from "express";
import type { Backends } from "../backends";
import type { HttpMetrics } from "./metrics";

// Health on the public port says only how the process is: the services behind it and their addresses are
// internal. The per-service detail and the metrics are served on the admin port (adminRoutes), which
// operators expose to their scraper and probes only.
//
// The public readiness does not depend on the services: a gateway whose backend is down still serves
// every other operation (that backend's answer 503 `unavailable`), and taking every gateway pod out of
// its Service because one backend is down would turn a partial outage into a total one. It fails while
// the gateway drains, so a rolling update moves traffic away first.

/** How long one service's health check may take, connecting included. */
const CHECK_TIMEOUT_MS = 2_500;

const serviceHealth = (backends: Backends) =>
  Promise.all(backends.health.map(async (h) => ({ name: h.name, address: h.address, status: await h.checker.check("", CHECK_TIMEOUT_MS) })));

/** `/healthz`: the process is up. `/readyz`: the gateway takes requests (it is not draining). */
export const healthRoutes = (isDraining: () => boolean): Router => {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", (_req, res) => {
    const draining = isDraining();
    res.status(draining ? 503 : 200).json({ status: draining ? "draining" : "ready" });
  });
  return router;
};

/**
 * The admin port: `/metrics` (Prometheus), `/healthz`, and `/readyz` naming each service's health:
 * 200 `ready` when every service answers SERVING, 503 `degraded` (or `draining`) otherwise.
 */
export const adminRoutes = (backends: Backends, metrics: HttpMetrics, isDraining: () => boolean): Router => {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const services = await serviceHealth(backends);
    const status = isDraining() ? "draining" : services.every((s) => s.status === "SERVING") ? "ready" : "degraded";
    res.status(status === "ready" ? 200 : 503).json({ status, services });
  });
  router.get("/metrics", async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
};
