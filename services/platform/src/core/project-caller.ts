import { forbidden } from "../errors";

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
