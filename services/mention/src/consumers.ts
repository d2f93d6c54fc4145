import { type CloudEvent, type ServiceDeps, type Subscription, subscribeEventBatches, subscribeEvents } from "@earshot/platform";
import type { MentionDeps } from "./domain/deps";
import { ingestPosts, MAX_POSTS_PER_BATCH } from "./domain/ingest";
import { handleKeywordEvent, handleProjectEvent } from "./domain/replicas";

// What the mention service consumes, each group from the earliest retained event, each event handled
// once: project and keyword events into the replicas, and collected posts into mentions.
//
// Posts come in batches: the bus hands this group up to POST_BATCH consecutive post.collected events of a
// partition (as many as have arrived; a quiet topic gives batches of one) and they are ingested together,
// so a burst costs one commit per batch rather than one per post. The batch is acknowledged only after
// its commit; a crash in between delivers it again, and the post keys make that harmless.

export const POSTS_TOPIC = "earshot.integration.v1";
export const POST_COLLECTED = "post.collected";
export const POST_BATCH = 200;

export const GROUPS = {
  projects: "mention.project-events",
  keywords: "mention.keyword-events",
  posts: "mention.posts",
} as const;

const postsOf = (events: CloudEvent[]): unknown[] => events.filter((e) => e.type === POST_COLLECTED).map((e) => e.data);

export const ingestCollectedPosts = async (deps: MentionDeps, events: CloudEvent[]): Promise<void> => {
  const posts = postsOf(events);
  for (let i = 0; i < posts.length; i += MAX_POSTS_PER_BATCH) {
    // Refused posts are logged by ingestion; delivering them again would not make them valid.
    await ingestPosts(deps, posts.slice(i, i + MAX_POSTS_PER_BATCH));
  }
};

export const startMentionConsumers = async (host: Pick<ServiceDeps, "bus" | "store" | "clock" | "logger">, deps: MentionDeps): Promise<Subscription[]> => {
  const common = { bus: host.bus, store: host.store, clock: host.clock, logger: host.logger, startFrom: "earliest" as const };
  const subscriptions: Subscription[] = [];
  try {
    subscriptions.push(
      await subscribeEvents({ ...common, groupId: GROUPS.projects, topics: ["earshot.project.v1"], handle: (event) => handleProjectEvent(deps, event) }),
      await subscribeEvents({ ...common, groupId: GROUPS.keywords, topics: ["earshot.keyword.v1"], handle: (event) => handleKeywordEvent(deps, event) }),
      await subscribeEventBatches({ ...common, groupId: GROUPS.posts, topics: [POSTS_TOPIC], maxBatch: POST_BATCH, handle: (events) => ingestCollectedPosts(deps, events) }),
    );
  } catch (err) {
    await Promise.all(subscriptions.map((s) => s.stop()));
    throw err;
  }
  return subscriptions;
};
