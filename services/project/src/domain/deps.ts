import type { Clock, Logger, Mailer, Outbox, WorkspaceGuard } from "@earshot/platform/core";
import type { ProjectCollections } from "../store";

export interface ProjectDeps {
  collections: ProjectCollections;
  outbox: Outbox;
  clock: Clock;
  mailer: Mailer;
  logger: Logger;
  guard: WorkspaceGuard;
}

/** Who a verb acts for: the RPC's validated caller (its memberships are not used; the members collection is authoritative). */
export interface Caller {
  userId: string;
  workspaceId: string;
  email: string;
  allowances: { projects: number; seats: number };
}
