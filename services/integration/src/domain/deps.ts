import type { Clock, Logger, Mailer, Outbox, TokenSealer } from "@earshot/platform/core";
import type { Source } from "@earshot/platform/core";
import type { Collector, QuotaLedger } from "../collectors/collector";
import type { IntegrationSettings } from "../config";
import type { IntegrationCollections } from "../store";
import type { LinkedinClient } from "./linkedin-client";

export interface IntegrationDeps {
  collections: IntegrationCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  settings: IntegrationSettings;
  /** One collector per source. */
  collectors: Record<Source, Collector>;
  /** The daily provider budgets the collectors spend (YouTube), shared across replicas. */
  quota: QuotaLedger;
  /** LinkedIn's authorization and Page listing (the HTTP client in production). */
  linkedinApi: LinkedinClient;
  sealer: TokenSealer;
  /** Names this process in leases (unique per process). */
  replicaId: string;
  /** Sources served by local simulators (reported by get_source_health). */
  simulated: ReadonlySet<Source>;
  /** Why a feed's URL may not be fetched (the `url` field's message), by the outbound rule webhooks follow; undefined when it may. */
  refusedUrl(url: string): Promise<string | undefined>;
  /** Mail to people (a feed that keeps failing, to its workspace's owner). */
  mailer: Mailer;
  /** The origin people open links at (`EARSHOT_PUBLIC_URL`). */
  publicUrl: string;
}

/** Who a verb acts for: the caller with their memberships, as the edge resolved them. */
export type { ProjectCaller as Caller, ProjectMembership as Membership, ProjectRole } from "@earshot/platform/core";
