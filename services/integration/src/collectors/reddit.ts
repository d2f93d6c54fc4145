import type { Collector } from "./collector";
import type { CollectorDeps } from "./collector-deps";

// PLACEHOLDER until the reddit collector is written.
export const createRedditCollector = (_deps: CollectorDeps): Collector => ({
  source: "reddit",
  configured: false,
  poll: () => Promise.reject(new Error("reddit collector not written yet")),
});
