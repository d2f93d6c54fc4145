import type { StagedEvent } from "@earshot/platform/core";
import type { integrationV1Events } from "@earshot/proto";

// The LinkedIn connection's events, through the outbox to `earshot.integration.v1` (the Outbox derives
// the topic from the service name), keyed by project id like every project-scoped event. `data` is the
// proto JSON form of LinkedinIntegrationChanged.

export const INTEGRATION_EVENT_SOURCE = "earshot/integration";

export const LINKEDIN_EVENT_TYPES = ["integration.linkedin.connected", "integration.linkedin.disconnected", "integration.linkedin.synced"] as const;

export type LinkedinEventType = (typeof LINKEDIN_EVENT_TYPES)[number];

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

export const linkedinEvent = (type: LinkedinEventType, facts: LinkedinEventFacts): StagedEvent<integrationV1Events.LinkedinIntegrationChanged> => ({
  type,
  source: INTEGRATION_EVENT_SOURCE,
  subject: facts.projectId,
  key: facts.projectId,
  data: {
    projectId: facts.projectId,
    workspaceId: facts.workspaceId,
    organizationUrn: facts.organizationUrn ?? "",
    reason: facts.reason ?? "",
    postsFound: facts.postsFound ?? 0,
    at: facts.at.toISOString(),
  },
});
