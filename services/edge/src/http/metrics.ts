import type { NextFunction, Request, Response } from "express";
import type { BusMetrics } from "@earshot/platform";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

// One registry per app instance (not prom-client's global one), so tests and the all-in-one can build
// several apps in a process without duplicate-metric errors.
export interface HttpMetrics {
  registry: Registry;
  middleware: (req: Request, res: Response, next: NextFunction) => void;
}

export const createHttpMetrics = (): HttpMetrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
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
  };
};

/**
 * Publishes the bus's own counters (dead letters, by topic and consumer group) in `registry`, read at
 * scrape time: the platform keeps them in memory and leaves their exposition to the host.
 */
export const exposeBusMetrics = (registry: Registry, bus: BusMetrics): void => {
  const source = bus.deadLettered;
  new Counter({
    name: source.name,
    help: source.help,
    labelNames: ["topic", "group"],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of source.readings()) this.inc({ topic: r.labels.topic ?? "", group: r.labels.group ?? "" }, r.value);
    },
  });
};
