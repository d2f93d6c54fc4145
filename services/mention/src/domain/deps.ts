import type { Clock, Logger, Outbox } from "@earshot/platform/core";
import type { MentionCollections } from "../store";
import type { ProjectMatchers } from "./ingest-matchers";

/** Counts by label set, e.g. ingested posts by `outcome`; the wiring decides where the counts are shown. */
export interface Counter {
  inc(labels: Record<string, string>, by?: number): void;
}

export interface MentionDeps {
  collections: MentionCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  /** This process's keyword matchers, one per project, kept current from the keyword copies. */
  matchers: ProjectMatchers;
  /** Ingested posts by outcome: created, duplicate, unmatched, skipped, refused. */
  ingested: Counter;
}

/** Who a verb acts for: the caller with their memberships, as the edge resolved them. */
export type { ProjectCaller as Caller, ProjectMembership as Membership, ProjectRole } from "@earshot/platform/core";
