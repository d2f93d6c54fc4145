import type { Collector } from "./collector";
import type { CollectorDeps } from "./collector-deps";

// PLACEHOLDER until the x collector is written.
export const createXCollector = (_deps: CollectorDeps): Collector => ({
  source: "x",
  configured: false,
  poll: () => Promise.reject(new Error("x collector not written yet")),
});
