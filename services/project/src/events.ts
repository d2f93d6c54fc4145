import { stageEvent, type StagedEvent } from "@earshot/platform/core";
import { isDashboardServed } from "./domain/public-dashboard";
import { toProjectMessage } from "./project-message";
import type { MemberDoc, ProjectDoc } from "./store";
import { PROJECT_EVENTS, type MemberChanged, type MemberEventType, type ProjectArchived, type ProjectCreated, type ProjectUpdated, type PublicDashboardChanged } from "@earshot/contracts/events/project";

// The project service's events: the builders its domain stages through the outbox. The catalog and the
// decoded event types are the contract layer's (`@earshot/contracts/events`), re-exported here for this
// service's own code; other services read them from the contract layer.

export * from "@earshot/contracts/events/project";

const ofProject = (projectId: string) => ({ key: projectId, subject: projectId });

export const projectCreatedEvent = (p: ProjectDoc): StagedEvent<ProjectCreated> =>
  stageEvent(PROJECT_EVENTS, "project.created", ofProject(p._id), {
    projectId: p._id,
    workspaceId: p.workspaceId,
    ownerId: p.ownerId,
    name: p.name,
    digestTimezone: p.digestTimezone,
    enabledSources: [...p.enabledSources],
    project: toProjectMessage(p, ""),
  });

export const projectUpdatedEvent = (p: ProjectDoc, fields: string[]): StagedEvent<ProjectUpdated> =>
  stageEvent(PROJECT_EVENTS, "project.updated", ofProject(p._id), {
    projectId: p._id,
    workspaceId: p.workspaceId,
    fields,
    status: p.status,
    digestTimezone: p.digestTimezone,
    enabledSources: [...p.enabledSources],
    project: toProjectMessage(p, ""),
  });

export const projectArchivedEvent = (p: ProjectDoc): StagedEvent<ProjectArchived> =>
  stageEvent(PROJECT_EVENTS, "project.archived", ofProject(p._id), { projectId: p._id, workspaceId: p.workspaceId, project: toProjectMessage(p, "") });

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
    ...(p.publicDashboard.minRelevance !== undefined ? { minRelevance: p.publicDashboard.minRelevance } : {}),
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
