import type { Clock, Logger, Mailer, Outbox } from "@earshot/platform/core";
import type { ProjectCollections } from "../store";
import type { WorkspaceGuard } from "./workspace-guard";

export interface ProjectDeps {
  collections: ProjectCollections;
  outbox: Outbox;
  clock: Clock;
  mailer: Mailer;
  logger: Logger;
  guard: WorkspaceGuard;
}

export interface Caller {
  userId: string;
  workspaceId: string;
  email: string;
  allowances: { projects: number; seats: number };
}

export const SOURCE = "earshot/project";
