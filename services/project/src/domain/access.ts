import { forbidden, notFound } from "@earshot/platform/core";
import type { MemberDoc, ProjectDoc } from "../store";
import type { Caller, ProjectDeps } from "./deps";
import type { ProjectRole } from "./project-rules";

// Who may do what in a project (spec section 5): viewers read, editors write, owners also change status
// and the team. Someone who is not a member gets not_found for everything, so existence never leaks.

export interface ProjectView {
  project: ProjectDoc;
  role: ProjectRole;
  membership: MemberDoc;
}

const RANK: Record<ProjectRole, number> = { viewer: 1, editor: 2, owner: 3 };

export const memberKey = (projectId: string, userId: string) => `${projectId}:${userId}`;

export const loadVisibleProject = async (deps: ProjectDeps, caller: Caller, projectId: string): Promise<ProjectView> => {
  const [project, membership] = await Promise.all([
    deps.collections.projects.findById(projectId),
    deps.collections.members.findOne({ memberKey: memberKey(projectId, caller.userId) }),
  ]);
  if (!project || !membership) throw notFound("Project");
  return { project, role: membership.role, membership };
};

const NEEDS: Record<Exclude<ProjectRole, "viewer">, string> = {
  editor: "This needs the editor or owner role in the project.",
  owner: "Only the project owner can do this.",
};

export const requireRole = (view: ProjectView, minimum: ProjectRole): void => {
  if (RANK[view.role] < RANK[minimum]) throw forbidden(NEEDS[minimum as Exclude<ProjectRole, "viewer">]);
};

export const loadProjectWithRole = async (deps: ProjectDeps, caller: Caller, projectId: string, minimum: ProjectRole): Promise<ProjectView> => {
  const view = await loadVisibleProject(deps, caller, projectId);
  requireRole(view, minimum);
  return view;
};
