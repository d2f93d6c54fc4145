import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf, stageEvent, type StagedEvent } from "@earshot/platform/core";
import { projectV1Events } from "@earshot/proto";
import { isDashboardServed } from "./domain/public-dashboard";
import type { MemberDoc, ProjectDoc } from "./store";

// The project service's events, published as `@earshot/project/events`: the catalog (topic
// `earshot.project.v1`, source `earshot/project`, and each type's message in events.proto), the builders
// the domain stages through the outbox, and the decoded event type consumers receive, with its decoder.
// Keyed by project id so one project's events keep their order; `data` is the proto JSON form
// (lowerCamelCase) of the type's message, every field present. Role, member type and status travel as the
// API's words (owner, member, active…), as consumers outside gRPC read them.

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

const ofProject = (projectId: string) => ({ key: projectId, subject: projectId });

export const projectCreatedEvent = (p: ProjectDoc): StagedEvent<ProjectCreated> =>
  stageEvent(PROJECT_EVENTS, "project.created", ofProject(p._id), {
    projectId: p._id,
    workspaceId: p.workspaceId,
    ownerId: p.ownerId,
    name: p.name,
    digestTimezone: p.digestTimezone,
    enabledSources: [...p.enabledSources],
  });

export const projectUpdatedEvent = (p: ProjectDoc, fields: string[]): StagedEvent<ProjectUpdated> =>
  stageEvent(PROJECT_EVENTS, "project.updated", ofProject(p._id), {
    projectId: p._id,
    workspaceId: p.workspaceId,
    fields,
    status: p.status,
    digestTimezone: p.digestTimezone,
    enabledSources: [...p.enabledSources],
  });

export const projectArchivedEvent = (p: ProjectDoc): StagedEvent<ProjectArchived> =>
  stageEvent(PROJECT_EVENTS, "project.archived", ofProject(p._id), { projectId: p._id, workspaceId: p.workspaceId });

/** What a public dashboard shows or whether it answers: a change of any of these is said by `project.dashboard_changed`. */
const publicSide = (p: ProjectDoc) =>
  JSON.stringify([isDashboardServed(p), p.status, p.name, p.color, p.icon, p.enabledSources, p.digestTimezone, p.publicDashboard]);

/**
 * `project.dashboard_changed` when a write from `before` to `after` changes what the project's public
 * dashboard shows or whether it is served; nothing for a project that never had a share id.
 */
export const dashboardChangedEvents = (before: ProjectDoc, after: ProjectDoc): StagedEvent<PublicDashboardChanged>[] => {
  if (!after.publicDashboard.shareId || publicSide(before) === publicSide(after)) return [];
  return [dashboardChangedEvent(after)];
};

/** `project.dashboard_changed` saying the project's share id and whether it is served now; the project must have a share id. */
export const dashboardChangedEvent = (p: ProjectDoc): StagedEvent<PublicDashboardChanged> =>
  stageEvent(PROJECT_EVENTS, "project.dashboard_changed", ofProject(p._id), {
    projectId: p._id,
    workspaceId: p.workspaceId,
    shareId: p.publicDashboard.shareId ?? "",
    served: isDashboardServed(p),
  });

export const memberEvent = (type: MemberEventType, m: MemberDoc): StagedEvent<MemberChanged> =>
  stageEvent(PROJECT_EVENTS, type, ofProject(m.projectId), {
    projectId: m.projectId,
    memberId: m._id,
    memberType: m.memberType,
    userId: m.userId ?? "",
    email: m.email,
    role: m.role,
    workspaceId: m.workspaceId,
  });
