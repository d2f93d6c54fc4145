import { stageEvent, type StagedEvent } from "@earshot/platform/core";
import type { CollectedPost } from "./collectors/collector";
import { integrationOf } from "./linkedin-message";
import type { LinkedinConnectionDoc } from "./store";
import { INTEGRATION_EVENTS, type LinkedinEventType, type LinkedinIntegrationChanged, type PostCollected } from "@earshot/contracts/events/integration";

// The integration service's events: the builders its domain stages through the outbox. The catalog and the
// decoded event types are the contract layer's (`@earshot/contracts/events`), re-exported here for this
// service's own code; other services read them from the contract layer.

export * from "@earshot/contracts/events/integration";

/** A post as a collector finds it, what `postCollectedEvent` stages. */
export type { CollectedPost };

/**
 * Why a connection ended: the owner asked, the project was archived, the owner's account was deactivated,
 * or LinkedIn no longer accepts its authorization (the owner must connect again).
 */
export type DisconnectReason = "disconnected" | "project_archived" | "account_deactivated" | "reauthorization_required";

export interface LinkedinEventFacts {
  projectId: string;
  /** The connection after the change, as the event carries it. */
  connection: LinkedinConnectionDoc;
  workspaceId: string;
  organizationUrn?: string;
  reason?: DisconnectReason;
  postsFound?: number;
  at: Date;
}

export const linkedinEvent = (type: LinkedinEventType, facts: LinkedinEventFacts): StagedEvent<LinkedinIntegrationChanged> =>
  stageEvent(INTEGRATION_EVENTS, type, { key: facts.projectId, subject: facts.projectId }, {
    projectId: facts.projectId,
    workspaceId: facts.workspaceId,
    organizationUrn: facts.organizationUrn ?? "",
    reason: facts.reason ?? "",
    postsFound: facts.postsFound ?? 0,
    at: facts.at.toISOString(),
    integration: integrationOf(facts.projectId, facts.connection),
  });

/** int64 fields travel as decimal strings in the proto JSON form. */
const int64 = (n: number): string => String(n);

export const postCollectedEvent = (projectId: string, post: CollectedPost, collectedAt: Date): StagedEvent<PostCollected> =>
  stageEvent(INTEGRATION_EVENTS, "post.collected", { key: projectId, subject: projectId }, {
    projectId,
    source: post.source,
    sourceId: post.sourceId,
    url: post.url,
    title: post.title,
    text: post.text,
    author: {
      id: post.author.id,
      handle: post.author.handle,
      name: post.author.name,
      url: post.author.url,
      followers: post.author.followers === undefined ? undefined : int64(post.author.followers),
    },
    publishedAt: post.publishedAt,
    collectedAt: collectedAt.toISOString(),
    lang: post.lang,
    parentId: post.parentId,
    metrics: post.metrics && {
      likes: int64(post.metrics.likes),
      replies: int64(post.metrics.replies),
      shares: int64(post.metrics.shares),
      views: int64(post.metrics.views),
    },
    subreddit: post.subreddit,
    channelId: post.channelId,
    channelHandle: post.channelHandle,
  });
