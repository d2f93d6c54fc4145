import type { Logger } from "@earshot/platform/core";
import type { IntegrationSettings } from "../config";
import type { StreamDoc } from "../store";
import type { QuotaLedger } from "./collector";
import type { ProviderHttp } from "./provider-http";

/** What every collector is built from. */
export interface CollectorDeps {
  settings: IntegrationSettings;
  http: ProviderHttp;
  quota: QuotaLedger;
  logger: Logger;
  now: () => Date;
  /** The Bluesky stream's document as stored now (source health reports the stream from it). */
  streamDoc?: () => Promise<StreamDoc | null>;
}
