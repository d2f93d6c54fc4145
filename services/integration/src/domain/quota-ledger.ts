import type { Clock } from "@earshot/platform/core";
import type { QuotaLedger } from "../collectors/collector";
import type { IntegrationSettings } from "../config";
import type { IntegrationCollections } from "../store";

// PLACEHOLDER: the daily provider budgets kept in the store.
export const createQuotaLedger = (_collections: IntegrationCollections, _settings: IntegrationSettings, _clock: Clock): QuotaLedger => ({
  take: () => Promise.reject(new Error("not written yet")),
  left: () => Promise.reject(new Error("not written yet")),
});
