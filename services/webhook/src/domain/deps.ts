import type { Clock, Logger, Outbox, TokenSealer } from "@earshot/platform/core";
import type { WebhookCollections } from "../store";

export interface WebhookDeps {
  collections: WebhookCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  /** Seals signing secrets with the encryption key the integration service's tokens use. */
  sealer: TokenSealer;
  /**
   * Why a URL's host may not be reached (it resolves to a loopback, private, link-local, CGNAT, multicast or
   * metadata address, or to nothing), or undefined when every address it resolves to is public.
   */
  refusedHost(url: string): Promise<string | undefined>;
}

/** Who a verb acts for: the caller with their memberships, as the edge resolved them. */
export type { ProjectCaller as Caller, ProjectRole } from "@earshot/platform/core";
