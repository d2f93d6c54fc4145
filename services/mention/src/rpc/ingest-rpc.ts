import { SOURCE_WORDS } from "@earshot/platform";
import type { PostFields } from "@earshot/platform/core";
import type { mentionV1 } from "@earshot/proto";
import type { MentionDeps } from "../domain/deps";
import { ingestPosts } from "../domain/ingest";
import { mentionsThisMonth } from "../domain/usage";

// gRPC adapter for the calls that act for nobody: IngestPosts (operators, import) and GetWorkspaceUsage
// (the edge names the caller's workspace). Decode, call the verb, encode; the verbs check everything.
// int64 arrives as a decimal string (forceLong=string); an enum value this build does not know becomes a
// word the post check refuses.

const count = (value: string | undefined): number | undefined => (value === undefined ? undefined : Number(value));

/** A proto Post as the ingest verb reads posts: source as a word, times as Dates, counts as numbers. */
export const postOfMessage = (p: mentionV1.Post): PostFields => ({
  projectId: p.projectId,
  source: p.source === 0 ? "" : (SOURCE_WORDS.word(p.source) ?? `unknown(${p.source})`),
  sourceId: p.sourceId,
  url: p.url,
  title: p.title,
  text: p.text,
  author: p.author && { id: p.author.id, handle: p.author.handle, name: p.author.name, url: p.author.url, followers: count(p.author.followers) },
  publishedAt: p.publishedAt,
  collectedAt: p.collectedAt,
  lang: p.lang,
  parentId: p.parentId,
  metrics: p.metrics && { likes: count(p.metrics.likes), replies: count(p.metrics.replies), shares: count(p.metrics.shares), views: count(p.metrics.views) },
  subreddit: p.subreddit,
  channelId: p.channelId,
  channelHandle: p.channelHandle,
});

export const ingestRpc = (deps: MentionDeps) => ({
  ingestPosts: async (req: mentionV1.IngestPostsRequest): Promise<mentionV1.IngestPostsResponse> => ingestPosts(deps, req.posts.map(postOfMessage)),
  // Named as get_usage names the count (the limit this service's registry entry declares).
  getWorkspaceUsage: async (req: mentionV1.GetWorkspaceUsageRequest): Promise<mentionV1.GetWorkspaceUsageResponse> => ({
    usage: { counts: { mentionsThisMonth: String(await mentionsThisMonth(deps, req.workspaceId)) } },
  }),
});
