import type { Clock, Logger, Outbox } from "@earshot/platform/core";
import type { MentionCollections } from "../store";
import type { ChangeSignals } from "./change-signals";
import type { KeyedQueue } from "@earshot/platform/core";
import type { ProjectMatchers } from "./ingest-matchers";
import type { RelevancePriors } from "./relevance/project-model";
import type { RescoreQueue } from "./relevance/rescore";
import type { StoryIndexes } from "./stories/story-indexes";

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
  /** This process's waiting change reads, woken by commits of their project. */
  changes: ChangeSignals;
  /** This process's commits of mention changes, one at a time per project (change-sequence.ts). */
  changeQueue: KeyedQueue;
  /** EARSHOT_CHANGE_FEED_RETENTION_DAYS: how long a change feed cursor is served. */
  changeFeed: { retentionDays: number };
  /**
   * This process's relevance priors, its background rescoring passes, and its ratings one at a time per
   * project (each replaces the project's model at its version: in one process they queue, not race).
   */
  relevance: { priors: RelevancePriors; rescores: RescoreQueue; ratings: KeyedQueue };
  /** This process's story indexes, one per project, replayed from the mentions (stories/story-indexes.ts). */
  stories: StoryIndexes;
}

/** Who a verb acts for: the caller with their memberships, as the edge resolved them. */
export type { ProjectCaller as Caller, ProjectMembership as Membership, ProjectRole } from "@earshot/platform/core";
