import type { Collector } from "./collector";
import type { CollectorDeps } from "./collector-deps";

// PLACEHOLDER until the youtube collector is written.
export const createYoutubeCollector = (_deps: CollectorDeps): Collector => ({
  source: "youtube",
  configured: false,
  poll: () => Promise.reject(new Error("youtube collector not written yet")),
});
