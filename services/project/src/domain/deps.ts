import type { Clock, Logger, Mailer, Outbox } from "@earshot/platform";
import type { ProjectCollections } from "../store";

export interface ProjectDeps {
  collections: ProjectCollections;
  outbox: Outbox;
  clock: Clock;
  mailer: Mailer;
  logger: Logger;
}

export interface Caller {
  userId: string;
  workspaceId: string;
  email: string;
  allowances: { projects: number; seats: number };
}

export const SOURCE = "earshot/project";
