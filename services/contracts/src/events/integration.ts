import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf } from "@earshot/platform/core";
import { integrationV1Events } from "@earshot/proto";

// The integration service's events (topic `earshot.integration.v1`, source `earshot/integration`): the
// catalog, each type's message in proto/earshot/integration/v1/events.proto, and the decoded event type
// consumers receive, with its decoder. Keyed by project id like every project-scoped event.
// - `integration.linkedin.*`: a project's LinkedIn connection (LinkedinIntegrationChanged).
// - `post.collected`: one new post a collector found (PostCollected), which the mention service matches.
// Its producer stages them with its own builders; every consumer reads the catalog from here, so no
// service depends on another to read its events.

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
