import { notFound, requireProjectRole } from "@earshot/platform/core";
import type { ProjectStateDoc } from "../store";
import type { Caller, KeywordDeps, ProjectRole } from "./deps";

// Who may do what with a project's keywords (spec section 5): viewers read, editors and owners write.
// Someone who is not a member gets not_found for everything, so existence never leaks; an archived
// project's keywords are gone for everyone.

export interface ProjectAccess {
  projectId: string;
  workspaceId: string;
  role: ProjectRole;
  /** What this service knows of the project; undefined for a project it has not heard of yet. */
  state: ProjectStateDoc | null;
}

/**
 * The caller's access to a project, refused as not_found(`what`) when they are not a member or the project
 * is archived, and as forbidden when their role is below `minimum`.
 */
export const accessProject = async (deps: KeywordDeps, caller: Caller, projectId: string, minimum: ProjectRole, what = "Project"): Promise<ProjectAccess> => {
  const membership = caller.membership(projectId);
  if (!membership) throw notFound(what);
  const state = await deps.collections.projects.findById(projectId);
  if (state?.status === "archived") throw notFound(what);
  requireProjectRole(membership.role, minimum);
  return { projectId, workspaceId: state?.workspaceId ?? membership.workspaceId, role: membership.role, state };
};
