import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf, stageEvent, type StagedEvent } from "@earshot/platform/core";
import { integrationV1Events } from "@earshot/proto";
import type { CollectedPost } from "./collectors/collector";

// The integration service's events, published as `@earshot/integration/events`: the catalog (topic
// `earshot.integration.v1`, source `earshot/integration`, and each type's message in events.proto), the
// builders the domain stages through the outbox, and the decoded event type consumers receive, with its
// decoder. Keyed by project id like every project-scoped event; `data` is the proto JSON form of the
// type's message.
// - `integration.linkedin.*`: a project's LinkedIn connection (LinkedinIntegrationChanged).
// - `post.collected`: one new post a collector found (PostCollected), which the mention service matches.

/** A post as a collector finds it, what `postCollectedEvent` stages. */
export type { CollectedPost };

export const INTEGRATION_EVENTS = defineEventCatalog("integration", {
  "integration.linkedin.connected": integrationV1Events.LinkedinIntegrationChanged,
  "integration.linkedin.disconnected": integrationV1Events.LinkedinIntegrationChanged,
  "integration.linkedin.synced": integrationV1Events.LinkedinIntegrationChanged,
  "post.collected": integrationV1Events.PostCollected,
});

export const INTEGRATION_TOPIC = INTEGRATION_EVENTS.topic;
export const INTEGRATION_EVENT_SOURCE = INTEGRATION_EVENTS.source;
export const INTEGRATION_EVENT_TYPES = INTEGRATION_EVENTS.types;
export type IntegrationEventType = (typeof INTEGRATION_EVENT_TYPES)[number];
export type LinkedinEventType = Extract<IntegrationEventType, `integration.linkedin.${string}`>;
/** An integration event as a consumer receives it, its data decoded; narrow on `type`. */
export type IntegrationEvent = EventOf<typeof INTEGRATION_EVENTS>;
/** An event of this topic read with its type's message; undefined for a type the catalog does not know. */
export const decodeIntegrationEvent = (event: CloudEvent): IntegrationEvent | undefined => decodeEvent(INTEGRATION_EVENTS, event);

export type LinkedinIntegrationChanged = integrationV1Events.LinkedinIntegrationChanged;
export type PostCollected = integrationV1Events.PostCollected;

/**
 * Why a connection ended: the owner asked, the project was archived, the owner's account was deactivated,
 * or LinkedIn no longer accepts its authorization (the owner must connect again).
 */
export type DisconnectReason = "disconnected" | "project_archived" | "account_deactivated" | "reauthorization_required";

export interface LinkedinEventFacts {
  projectId: string;
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
