import type { Clock, Logger, Outbox } from "@earshot/platform/core";
import type { AlertCollections } from "../store";

export interface AlertDeps {
  collections: AlertCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
}

/** Who a verb acts for: the caller with their memberships, as the edge resolved them (the platform's `ProjectCaller`). */
export type { ProjectCaller as Caller, ProjectRole } from "@earshot/platform/core";
