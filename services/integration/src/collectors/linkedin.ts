import type { Collector } from "./collector";
import type { CollectorDeps } from "./collector-deps";

// PLACEHOLDER until the linkedin collector is written.
export const createLinkedinCollector = (_deps: CollectorDeps): Collector => ({
  source: "linkedin",
  configured: false,
  poll: () => Promise.reject(new Error("linkedin collector not written yet")),
});
