import type { Source } from "@earshot/platform/core";
import type { Collector } from "./collector";

// A source the API already names but this build has no collector for yet: never configured, so its
// pollers stay idle ("no credentials configured") and projects may still list it among enabledSources.
export const createNotCollected = (source: Source): Collector => ({
  source,
  configured: false,
  searchesKeywords: true,
  poll: () => Promise.reject(new Error(`no collector for ${source} in this build`)),
});
