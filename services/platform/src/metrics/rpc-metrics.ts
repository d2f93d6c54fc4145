import { status } from "@grpc/grpc-js";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { BusMetrics } from "../bus/port";

// What a process exposes on its metrics port. One registry per process host (never prom-client's global
// one), so tests and the all-in-one can build several in one process without duplicate-metric errors.

/** Records how each RPC a server answered ended: by full method (`/pkg.Service/Method`) and status code. */
export interface RpcMetrics {
  observe(method: string, code: status, seconds: number): void;
}

const codeName = (code: status): string => status[code] ?? String(code);

/** A registry with the process metrics (CPU, memory, event loop lag, GC) already collected. */
export const createMetricsRegistry = (): Registry => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
};

/** Per-RPC counters and latency histograms in `registry`, labelled by method and gRPC status code. */
export const createRpcMetrics = (registry: Registry): RpcMetrics => {
  const calls = new Counter({
    name: "earshot_grpc_server_handled_total",
    help: "RPCs answered by this server, by method and gRPC status code.",
    labelNames: ["method", "code"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "earshot_grpc_server_handling_seconds",
    help: "Time from receiving an RPC to answering it, by method and gRPC status code.",
    labelNames: ["method", "code"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return {
    observe: (method, code, seconds) => {
      const labels = { method, code: codeName(code) };
      calls.inc(labels);
      duration.observe(labels, seconds);
    },
  };
};

/**
 * Publishes the bus's own counters (dead letters, by topic and consumer group) in `registry`, read at
 * scrape time: the bus counts in memory and leaves their exposition to the host.
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
