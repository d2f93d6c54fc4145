import type { NextFunction, Request, Response } from "express";
import { createMetricsRegistry } from "@earshot/platform";
import { Histogram, type Registry } from "prom-client";

// One registry per app instance (not prom-client's global one), so tests and the all-in-one can build
// several apps in a process without duplicate-metric errors.
export interface HttpMetrics {
  registry: Registry;
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  /** Records a request the express chain did not see (the API and MCP dispatch): `route` is its pattern, `since` its start (performance.now()). */
  observe: (method: string, route: string, status: number, since: number) => void;
}

/** `registry`: where the HTTP metrics go; a fresh one (with the process metrics) by default. */
export const createHttpMetrics = (registry: Registry = createMetricsRegistry()): HttpMetrics => {
  const duration = new Histogram({
    name: "earshot_http_request_duration_seconds",
    help: "HTTP request duration by route and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    registry,
    middleware: (req, res, next) => {
      const end = duration.startTimer();
      res.on("finish", () => {
        // The matched route pattern, never the raw path: ids in paths would explode the label set.
        const route = (req.route as { path?: string } | undefined)?.path;
        end({ method: req.method, route: route ? `${req.baseUrl}${route}` : "unmatched", status: String(res.statusCode) });
      });
      next();
    },
    observe: (method, route, status, since) => duration.observe({ method, route, status: String(status) }, (performance.now() - since) / 1000),
  };
};

/** The bus's dead-letter counters in a registry; the platform owns it, every host exposes it the same way. */
export { exposeBusMetrics } from "@earshot/platform";
