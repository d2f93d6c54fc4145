import type { Clock, Logger, Outbox, WorkspaceGuard } from "@earshot/platform/core";
import type { KeywordCollections } from "../store";

export interface KeywordDeps {
  collections: KeywordCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  guard: WorkspaceGuard;
}

export type ProjectRole = "owner" | "editor" | "viewer";

/** The caller's membership of one project, as the edge resolved it. */
export interface Membership {
  role: ProjectRole;
  /** The project's workspace. */
  workspaceId: string;
}

/**
 * Who a verb acts for. The project service owns memberships; this service authorizes with the edge's view
 * of them (kept current by member and project events), as DESIGN.md's access context prescribes.
 */
export interface Caller {
  userId: string;
  workspaceId: string;
  allowances: { keywords: number };
  membership(projectId: string): Membership | undefined;
}
