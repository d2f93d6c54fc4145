import { LabeledCounter, type ServiceDeps } from "@earshot/platform";
import type { MentionDeps } from "./domain/deps";
import { ChangeSignals } from "./domain/change-signals";
import { KeyedQueue } from "@earshot/platform/core";
import { ProjectMatchers } from "./domain/ingest-matchers";
import { RelevancePriors } from "./domain/relevance/project-model";
import { RescoreQueue } from "./domain/relevance/rescore";
import { StoryIndexes } from "./domain/stories/story-indexes";
import type { MentionCollections } from "./store";

// How the service's parts are put together: the service (service.ts) and the domain tests' world
// (test-support.ts) build them with this one function, so a test runs the verbs as the service wires them.
// Each call is a process of its own: its own matchers and counts.

export type MentionWiringInput = Pick<ServiceDeps, "outbox" | "clock" | "logger"> & {
  collections: MentionCollections;
  /** EARSHOT_CHANGE_FEED_RETENTION_DAYS; 30 unless said. */
  changeFeedRetentionDays?: number;
};

export const wireMention = (input: MentionWiringInput): MentionDeps => ({
  collections: input.collections,
  outbox: input.outbox,
  clock: input.clock,
  logger: input.logger,
  matchers: new ProjectMatchers(),
  // Counted in memory (no metrics endpoint serves a gRPC service); each batch's counts are logged at debug.
  ingested: new LabeledCounter("earshot_mention_posts_total", "Posts ingested, by outcome: created, duplicate, unmatched, skipped, refused."),
  changes: new ChangeSignals(),
  changeQueue: new KeyedQueue(),
  changeFeed: { retentionDays: input.changeFeedRetentionDays ?? 30 },
  relevance: { priors: new RelevancePriors(), rescores: new RescoreQueue(), ratings: new KeyedQueue() },
  stories: new StoryIndexes(),
});
