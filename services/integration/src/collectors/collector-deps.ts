import type { Logger } from "@earshot/platform/core";
import type { IntegrationSettings } from "../config";
import type { Collection } from "@earshot/platform";
import type { FeedDoc, StreamDoc } from "../store";
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
  /** The projects' feeds (the rss collector reads and marks them). */
  feeds?: Collection<FeedDoc>;
}
