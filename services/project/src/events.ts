import type { StagedEvent } from "@earshot/platform";
import type { projectV1Events } from "@earshot/proto";
import type { MemberDoc, ProjectDoc } from "./store";

// The project service's events. They go through the outbox to `earshot.project.v1` (the Outbox derives
// the topic from the service name), keyed by project id so one project's events keep their order. `data`
// is the proto JSON form (lowerCamelCase) of the message in events.proto; role, member type and status
// travel as the API's words (owner, member, active…), as consumers outside gRPC read them.

export const PROJECT_EVENT_SOURCE = "earshot/project";

export const PROJECT_EVENT_TYPES = [
  "project.created",
  "project.updated",
  "project.archived",
  "member.invited",
  "member.added",
  "member.role_changed",
  "member.removed",
  "member.invite_revoked",
] as const;

export type ProjectEventType = (typeof PROJECT_EVENT_TYPES)[number];
export type MemberEventType = Extract<ProjectEventType, `member.${string}`>;

const event = <D>(type: ProjectEventType, projectId: string, data: D): StagedEvent<D> => ({
  type,
  source: PROJECT_EVENT_SOURCE,
  subject: projectId,
  key: projectId,
  data,
});

export const projectCreatedEvent = (p: ProjectDoc): StagedEvent<projectV1Events.ProjectCreated> =>
  event("project.created", p._id, { projectId: p._id, workspaceId: p.workspaceId, ownerId: p.ownerId, name: p.name, digestTimezone: p.digestTimezone, enabledSources: [...p.enabledSources] });

export const projectUpdatedEvent = (p: ProjectDoc, fields: string[]): StagedEvent<projectV1Events.ProjectUpdated> =>
  event("project.updated", p._id, { projectId: p._id, workspaceId: p.workspaceId, fields, status: p.status, digestTimezone: p.digestTimezone, enabledSources: [...p.enabledSources] });

export const projectArchivedEvent = (p: ProjectDoc): StagedEvent<projectV1Events.ProjectArchived> =>
  event("project.archived", p._id, { projectId: p._id, workspaceId: p.workspaceId });

export const memberEvent = (type: MemberEventType, m: MemberDoc): StagedEvent<projectV1Events.MemberChanged> =>
  event(type, m.projectId, {
    projectId: m.projectId,
    memberId: m._id,
    memberType: m.memberType,
    userId: m.userId ?? "",
    email: m.email,
    role: m.role,
    workspaceId: m.workspaceId,
  });
