import { INTEGRATION_EVENTS, KEYWORD_EVENTS, MENTION_EVENTS, type PostCollected, PROJECT_EVENTS } from "@earshot/contracts/events";
import { consume, consumeBatches, watch } from "@earshot/platform";
import type { PostFields } from "@earshot/platform/core";
import type { MentionDeps } from "./domain/deps";
import { ingestPosts, MAX_POSTS_PER_BATCH } from "./domain/ingest";
import { handleKeywordEvent, handleProjectEvent } from "./domain/copies";

// What the mention service consumes, each group from the earliest retained event, each event handled
// once: project and keyword events into their copies, and collected posts into mentions.
//
// Posts come in batches: the bus hands this group up to POST_BATCH consecutive post.collected events of a
// partition (as many as have arrived; a quiet topic gives batches of one) and they are ingested together,
// so a burst costs one commit per batch rather than one per post. The batch is acknowledged only after
// its commit; a crash in between delivers it again, and the post keys make that harmless.

export const POST_BATCH = 200;

export const GROUPS = {
  projects: "mention.project-events",
  keywords: "mention.keyword-events",
  posts: "mention.posts",
  /** Per process (`watch`): other replicas' mention changes wake this one's waiting change reads. */
  changes: "mention.change-wakeups",
} as const;

/** int64 counts travel as decimal strings; ingestion checks numbers (a count that is not one is refused there). */
const count = (value: string | undefined): number | undefined => (value === undefined ? undefined : Number(value));

/** The post a `post.collected` event carries, as ingestion checks it (the shape IngestPosts takes too). */
export const postOf = (p: PostCollected): PostFields => ({
  projectId: p.projectId,
  source: p.source,
  sourceId: p.sourceId,
  url: p.url,
  title: p.title,
  text: p.text,
  author: p.author && { id: p.author.id, handle: p.author.handle, name: p.author.name, url: p.author.url, followers: count(p.author.followers) },
  publishedAt: p.publishedAt,
  collectedAt: p.collectedAt || undefined,
  lang: p.lang,
  parentId: p.parentId,
  metrics: p.metrics && { likes: count(p.metrics.likes), replies: count(p.metrics.replies), shares: count(p.metrics.shares), views: count(p.metrics.views) },
  subreddit: p.subreddit,
  channelId: p.channelId,
  channelHandle: p.channelHandle,
});

export const ingestCollectedPosts = async (deps: MentionDeps, collected: readonly PostCollected[]): Promise<void> => {
  const posts = collected.map(postOf);
  for (let i = 0; i < posts.length; i += MAX_POSTS_PER_BATCH) {
    // Refused posts are logged by ingestion; delivering them again would not make them valid.
    await ingestPosts(deps, posts.slice(i, i + MAX_POSTS_PER_BATCH));
  }
};

/** The mention service's consumers, each from the earliest retained event: the host subscribes and stops them. */
export const MENTION_CONSUMERS = [
  consume(PROJECT_EVENTS, { group: GROUPS.projects, handle: handleProjectEvent }),
  consume(KEYWORD_EVENTS, { group: GROUPS.keywords, handle: handleKeywordEvent }),
  consumeBatches([INTEGRATION_EVENTS], {
    group: GROUPS.posts,
    types: ["post.collected"],
    maxBatch: POST_BATCH,
    handle: (deps: MentionDeps, events) => ingestCollectedPosts(deps, events.flatMap((e) => (e.type === "post.collected" ? [e.data] : []))),
  }),
  // Events of the mention topic are keyed by project: another replica committed a change of that project.
  watch(MENTION_EVENTS, { group: GROUPS.changes, handle: (deps: MentionDeps, projectId) => deps.changes.notify(projectId) }),
];
