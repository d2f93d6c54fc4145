import type { Clock, Logger, Outbox, WorkspaceGuard } from "@earshot/platform/core";
import type { KeywordCollections } from "../store";

export interface KeywordDeps {
  collections: KeywordCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  guard: WorkspaceGuard;
}

/** Who a verb acts for: the caller with their memberships, as the edge resolved them (the platform's `ProjectCaller`). */
export type { ProjectCaller as Caller, ProjectMembership as Membership, ProjectRole } from "@earshot/platform/core";
