import { notFound, requireProjectRole } from "@earshot/platform/core";
import type { ProjectStateDoc } from "../store";
import type { Caller, MentionDeps, ProjectRole } from "./deps";

// Who may do what with a project's mentions, categories and views (spec section 5): viewers read, editors
// and owners triage and organise. Someone who is not a member gets not_found, so existence never leaks;
// an archived project's mentions are gone for everyone.

export interface ProjectAccess {
  projectId: string;
  workspaceId: string;
  role: ProjectRole;
  /** What this service knows of the project; null for a project it has not heard of yet. */
  state: ProjectStateDoc | null;
}

export const accessProject = async (deps: MentionDeps, caller: Caller, projectId: string, minimum: ProjectRole, what = "Project"): Promise<ProjectAccess> => {
  const membership = caller.membership(projectId);
  if (!membership) throw notFound(what);
  const state = await deps.collections.projects.findById(projectId);
  if (state?.status === "archived") throw notFound(what);
  requireProjectRole(membership.role, minimum);
  return { projectId, workspaceId: state?.workspaceId ?? membership.workspaceId, role: membership.role, state };
};
