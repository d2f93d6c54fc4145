import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf } from "@earshot/platform/core";
import { projectV1Events } from "@earshot/proto";

// The project service's events (topic `earshot.project.v1`, source `earshot/project`): the catalog, each
// type's message in proto/earshot/project/v1/events.proto, and the decoded event type consumers receive,
// with its decoder. Keyed by project id so one project's events keep their order; `data` is the proto
// JSON form of the type's message, every field present. Role, member type and status travel as the API's
// words (owner, member, active…), as consumers outside gRPC read them.
// Its producer stages them with its own builders; every consumer reads the catalog from here, so no
// service depends on another to read its events.

export const PROJECT_EVENTS = defineEventCatalog("project", {
  "project.created": projectV1Events.ProjectCreated,
  "project.updated": projectV1Events.ProjectUpdated,
  "project.archived": projectV1Events.ProjectArchived,
  "project.dashboard_changed": projectV1Events.PublicDashboardChanged,
  "member.invited": projectV1Events.MemberChanged,
  "member.added": projectV1Events.MemberChanged,
  "member.role_changed": projectV1Events.MemberChanged,
  "member.removed": projectV1Events.MemberChanged,
  "member.invite_revoked": projectV1Events.MemberChanged,
});

export const PROJECT_TOPIC = PROJECT_EVENTS.topic;
export const PROJECT_EVENT_SOURCE = PROJECT_EVENTS.source;
export const PROJECT_EVENT_TYPES = PROJECT_EVENTS.types;
export type ProjectEventType = (typeof PROJECT_EVENT_TYPES)[number];
export type MemberEventType = Extract<ProjectEventType, `member.${string}`>;
/** A project event as a consumer receives it, its data decoded; narrow on `type`. */
export type ProjectEvent = EventOf<typeof PROJECT_EVENTS>;
/** An event of this topic read with its type's message; undefined for a type the catalog does not know. */
export const decodeProjectEvent = (event: CloudEvent): ProjectEvent | undefined => decodeEvent(PROJECT_EVENTS, event);
/** The member events alone (`member.*`), as the edge's membership cache consumes them. */
export type MemberEvent = EventOf<typeof PROJECT_EVENTS, MemberEventType>;

export type ProjectCreated = projectV1Events.ProjectCreated;
export type ProjectUpdated = projectV1Events.ProjectUpdated;
export type ProjectArchived = projectV1Events.ProjectArchived;
export type MemberChanged = projectV1Events.MemberChanged;
export type PublicDashboardChanged = projectV1Events.PublicDashboardChanged;
