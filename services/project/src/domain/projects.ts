import {
  conflict,
  newId,
  type Page,
  pageLimit,
  type StagedEvent,
  usageLimited,
  validationFailed,
  withCursorErrors,
  withVersionRetry,
} from "@earshot/platform/core";
import type { MemberDoc, ProjectDoc } from "../store";
import { MEMBERS, PROJECTS } from "../store";
import { loadProjectWithRole, loadVisibleProject, memberKey, type ProjectView, requireRole } from "./access";
import { projectArchivedEvent, projectCreatedEvent, projectUpdatedEvent } from "../events";
import { withDashboardChange } from "./dashboard-announcement";
import { bumped, replaceProject } from "./project-writes";
import type { Caller, ProjectDeps } from "./deps";
import {
  checkProjectFields,
  isProjectStatus,
  PROJECT_DEFAULTS,
  type ProjectFields,
  type ProjectRole,
  type ProjectStatus,
  type Source,
} from "./project-rules";


/**
 * Creates a project and its owner membership. The project allowance is checked under the workspace guard,
 * so racing creates cannot exceed it. With `effectKey` (the request's idempotency key), a re-run of a
 * create that already committed answers with that project instead of making another.
 */
export const createProject = async (
  deps: ProjectDeps,
  caller: Caller,
  input: ProjectFields & { name: string },
  effectKey?: string,
): Promise<ProjectView> => {
  const errors = checkProjectFields(input);
  if (errors.length > 0) throw validationFailed(errors);
  return deps.guard.runOnce(
    caller.workspaceId,
    effectKey,
    (effect) => loadVisibleProject(deps, caller, effect.resourceId),
    async (commit) => {
        const owned = await deps.collections.projects.count({ workspaceId: caller.workspaceId, status: { $ne: "archived" } });
        if (owned >= caller.allowances.projects) throw usageLimited("projects", caller.allowances.projects);
        const now = deps.clock.now();
        const project: ProjectDoc = {
          _id: newId("prj", now.getTime()),
          workspaceId: caller.workspaceId,
          ownerId: caller.userId,
          name: input.name.trim(),
          description: input.description ?? PROJECT_DEFAULTS.description,
          color: input.color ?? PROJECT_DEFAULTS.color,
          icon: input.icon ?? PROJECT_DEFAULTS.icon,
          enabledSources: (input.enabledSources as Source[] | undefined) ?? [...PROJECT_DEFAULTS.enabledSources],
          status: "active",
          digestTimezone: input.digestTimezone ?? PROJECT_DEFAULTS.digestTimezone,
          publicDashboard: { enabled: false, description: "" },
          createdAt: now,
          updatedAt: now,
          _v: 1,
        };
        const owner: MemberDoc = {
          _id: newId("mbr", now.getTime()),
          memberType: "member",
          projectId: project._id,
          workspaceId: project.workspaceId,
          userId: caller.userId,
          email: caller.email.toLowerCase(),
          role: "owner",
          memberKey: memberKey(project._id, caller.userId),
          createdAt: now,
          _v: 1,
        };
        await commit(
          [
            { kind: "insert", collection: PROJECTS, doc: project },
            { kind: "insert", collection: MEMBERS, doc: owner },
          ],
          [projectCreatedEvent(project)],
          effectKey ? { key: effectKey, resourceId: project._id } : undefined,
        );
        return { project, role: "owner" as const, membership: owner };
    },
  );
};

export interface ProjectUpdate extends ProjectFields {
  status?: string;
}

const FIELD_KEYS = ["name", "description", "color", "icon", "enabledSources", "digestTimezone"] as const;

export const updateProject = (deps: ProjectDeps, caller: Caller, projectId: string, update: ProjectUpdate): Promise<ProjectView> =>
  withVersionRetry(async () => {
    const errors = checkProjectFields(update);
    if (update.status !== undefined && !isProjectStatus(update.status)) {
      errors.push({ path: "status", message: "must be one of active, paused, archived" });
    }
    if (errors.length > 0) throw validationFailed(errors);
    const view = await loadVisibleProject(deps, caller, projectId);
    const changed = FIELD_KEYS.filter((k) => update[k] !== undefined);
    const statusChange = update.status !== undefined && update.status !== view.project.status;
    if (changed.length > 0) requireRole(view, "editor");
    if (update.status !== undefined) requireRole(view, "owner");
    if (view.project.status === "archived") {
      if (changed.length === 0 && !statusChange) return view;
      throw conflict("The project is archived.");
    }
    if (changed.length === 0 && !statusChange) return view;
    const now = deps.clock.now();
    const updated: ProjectDoc = { ...view.project, updatedAt: now };
    if (update.name !== undefined) updated.name = update.name.trim();
    if (update.description !== undefined) updated.description = update.description;
    if (update.color !== undefined) updated.color = update.color;
    if (update.icon !== undefined) updated.icon = update.icon;
    if (update.enabledSources !== undefined) updated.enabledSources = update.enabledSources as Source[];
    if (update.digestTimezone !== undefined) updated.digestTimezone = update.digestTimezone;
    if (statusChange) {
      updated.status = update.status as ProjectStatus;
      delete updated.pausedByDeactivation;
      if (updated.status === "archived") updated.archivedAt = now;
    }
    const dashboard = withDashboardChange(view.project, updated);
    const next = dashboard.next;
    const events: StagedEvent[] = [projectUpdatedEvent(next, [...changed, ...(statusChange ? ["status"] : [])])];
    if (next.status === "archived") events.push(projectArchivedEvent(next));
    events.push(...dashboard.events);
    await deps.outbox.commit([replaceProject(view.project, next)], events);
    return { ...view, project: bumped(next) };
  });

export const archiveProject = (deps: ProjectDeps, caller: Caller, projectId: string): Promise<ProjectView> =>
  withVersionRetry(async () => {
    const view = await loadProjectWithRole(deps, caller, projectId, "owner");
    if (view.project.status === "archived") return view;
    const now = deps.clock.now();
    const archived: ProjectDoc = { ...view.project, status: "archived", archivedAt: now, updatedAt: now };
    delete archived.pausedByDeactivation;
    const { next, events } = withDashboardChange(view.project, archived);
    await deps.outbox.commit([replaceProject(view.project, next)], [projectUpdatedEvent(next, ["status"]), projectArchivedEvent(next), ...events]);
    return { ...view, project: bumped(next) };
  });

/** Non-archived projects the caller owns or is a member of, newest first, each with the caller's role. */
export const listProjects = async (deps: ProjectDeps, caller: Caller, limit: number, cursor: string | undefined): Promise<Page<ProjectView>> => {
  const size = pageLimit(limit === 0 ? undefined : limit);
  const memberships = await deps.collections.members.find({ memberType: "member", userId: caller.userId });
  const byProject = new Map(memberships.map((m) => [m.projectId, m]));
  const page = await withCursorErrors(() =>
    deps.collections.projects.findPage(
      { _id: { $in: [...byProject.keys()] }, status: { $ne: "archived" } },
      { limit: size, cursor: cursor || null, direction: -1 },
    ),
  );
  return {
    items: page.items.map((project) => {
      const membership = byProject.get(project._id) as MemberDoc;
      return { project, role: membership.role, membership };
    }),
    nextCursor: page.nextCursor,
  };
};

/**
 * The projects a user is a member of, with the role, leaving out archived ones (an archived project grants
 * nothing): what the edge puts in the caller's memberships.
 */
export const membershipsOf = async (
  deps: ProjectDeps,
  userId: string,
): Promise<Array<{ projectId: string; role: ProjectRole; workspaceId: string }>> => {
  const memberships = await deps.collections.members.find({ memberType: "member", userId });
  if (memberships.length === 0) return [];
  const live = await deps.collections.projects.find({ _id: { $in: memberships.map((m) => m.projectId) }, status: { $ne: "archived" } });
  const liveIds = new Set(live.map((p) => p._id));
  return memberships.filter((m) => liveIds.has(m.projectId)).map((m) => ({ projectId: m.projectId, role: m.role, workspaceId: m.workspaceId }));
};
