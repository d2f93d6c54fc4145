import { type AsyncService, notFound, requireProjectCaller } from "@earshot/platform";
import type { integrationV1 } from "@earshot/proto";
import type { IntegrationDeps } from "../domain/deps";
import { createFeed, deleteFeed, listFeeds } from "../domain/feeds";
import type { FeedDoc } from "../store";

// gRPC adapter of the feeds resource: decode, call the domain verb, encode. The caller comes from the call
// metadata, never from the request.

type Handlers = Pick<AsyncService<integrationV1.IntegrationServiceServer>, "createFeed" | "listFeeds" | "deleteFeed">;

export const toFeedMessage = (f: FeedDoc): integrationV1.Feed => ({
  id: f._id,
  projectId: f.projectId,
  url: f.url,
  name: f.name,
  createdAt: f.createdAt,
  lastFetchedAt: f.lastFetchedAt,
  lastSuccessAt: f.lastSuccessAt,
  lastError: f.lastError ? { at: f.lastError.at, message: f.lastError.message, status: f.lastError.status } : undefined,
  failingSince: f.failingSince,
  entriesFound: String(f.entriesFound),
});

export const feedsRpc = (deps: IntegrationDeps): Handlers => ({
  createFeed: async (req, ctx) => {
    if (!req.projectId) throw notFound("Project");
    return { feed: toFeedMessage(await createFeed(deps, requireProjectCaller(ctx), { projectId: req.projectId, url: req.url, ...(req.name !== undefined ? { name: req.name } : {}) })) };
  },
  listFeeds: async (req, ctx) => {
    if (!req.projectId) throw notFound("Project");
    return { feeds: (await listFeeds(deps, requireProjectCaller(ctx), req.projectId)).map(toFeedMessage) };
  },
  deleteFeed: async (req, ctx) => {
    if (!req.feedId) throw notFound("Feed");
    return { feed: toFeedMessage(await deleteFeed(deps, requireProjectCaller(ctx), req.feedId)) };
  },
});
