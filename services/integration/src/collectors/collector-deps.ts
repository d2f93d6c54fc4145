import type { Logger } from "@earshot/platform/core";
import type { IntegrationSettings } from "../config";
import type { QuotaLedger } from "./collector";
import type { ProviderHttp } from "./provider-http";

/** What every collector is built from. */
export interface CollectorDeps {
  settings: IntegrationSettings;
  http: ProviderHttp;
  quota: QuotaLedger;
  logger: Logger;
  now: () => Date;
}
