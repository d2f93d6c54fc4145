import type { Clock, Logger, Outbox } from "@earshot/platform/core";
import type { MentionCollections } from "../store";

export interface MentionDeps {
  collections: MentionCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
}

/** Who a verb acts for: the caller with their memberships, as the edge resolved them. */
export type { ProjectCaller as Caller, ProjectMembership as Membership, ProjectRole } from "@earshot/platform/core";
