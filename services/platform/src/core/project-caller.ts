import { forbidden, notFound } from "../errors";
import type { ProjectCopyStatus } from "./project-copy";

// Who a verb of a project-scoped service acts for (keywords, mentions, …): the caller the edge resolved,
// with their memberships (project → role and the project's workspace). The project service owns
// memberships; the other services authorize with this view of them, which the edge keeps current from
// member and project events (DESIGN.md "Access context").

export type ProjectRole = "owner" | "editor" | "viewer";

export interface ProjectMembership {
  role: ProjectRole;
  /** The workspace that owns the project: whose allowances its resources count against. */
  workspaceId: string;
}

export interface ProjectCaller {
  userId: string;
  workspaceId: string;
  allowances: { projects: number; keywords: number; seats: number; webhookDeliveriesPerDay: number; linkedinSyncsPerDay: number };
  membership(projectId: string): ProjectMembership | undefined;
}

const RANK: Record<ProjectRole, number> = { viewer: 1, editor: 2, owner: 3 };

const NEEDS: Record<Exclude<ProjectRole, "viewer">, string> = {
  editor: "This needs the editor or owner role in the project.",
  owner: "Only the project owner can do this.",
};

/** Refuses (forbidden) a role below `minimum`. */
export const requireProjectRole = (role: ProjectRole, minimum: ProjectRole): void => {
  if (RANK[role] < RANK[minimum]) throw forbidden(NEEDS[minimum as Exclude<ProjectRole, "viewer">]);
};

/** What a project-scoped service keeps of a project from the project service's events. */
export interface KnownProjectState {
  workspaceId: string;
  status: ProjectCopyStatus;
}

export interface ProjectAccess<S extends KnownProjectState> {
  projectId: string;
  /** The project's workspace: the service's record of it, else the caller's membership. */
  workspaceId: string;
  role: ProjectRole;
  /** What the service knows of the project; null for a project it has not heard of yet. */
  state: S | null;
}

/**
 * The caller's access to a project, refused as not_found(`what`) when they are not a member or the project
 * is archived (existence never leaks), and as forbidden when their role is below `minimum`. `readState`
 * reads the service's own record of the project.
 */
export const accessProjectOf = async <S extends KnownProjectState>(
  caller: ProjectCaller,
  projectId: string,
  minimum: ProjectRole,
  readState: (projectId: string) => Promise<S | null>,
  what = "Project",
): Promise<ProjectAccess<S>> => {
  const membership = caller.membership(projectId);
  if (!membership) throw notFound(what);
  const state = await readState(projectId);
  if (state?.status === "archived") throw notFound(what);
  requireProjectRole(membership.role, minimum);
  return { projectId, workspaceId: state?.workspaceId ?? membership.workspaceId, role: membership.role, state };
};
