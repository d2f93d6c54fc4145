import type { commonV1 } from "@earshot/proto";
import type { ProjectCaller, ProjectMembership, ProjectRole } from "../core/project-caller";

/** The Caller the edge would send for a user with no memberships, for tests calling a service directly. */
export const testCaller = (
  user: { id: string; workspaceId: string; email: string },
  memberships: commonV1.Membership[] = [],
): commonV1.Caller => ({
  userId: user.id,
  workspaceId: user.workspaceId,
  email: user.email,
  memberships,
  allowances: { projects: 10, keywords: 100, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 },
});

/**
 * The domain `ProjectCaller` a project-scoped service's RPC adapter would build, for domain tests: roles in
 * projects (`{ prj_…: "editor" }`, or a role with another workspace), in workspace `wsp_1` unless told.
 */
export const testProjectCaller = (
  roles: Record<string, ProjectRole | ProjectMembership> = {},
  overrides: { userId?: string; workspaceId?: string; allowances?: Partial<ProjectCaller["allowances"]> } = {},
): ProjectCaller => {
  const workspaceId = overrides.workspaceId ?? "wsp_1";
  const memberships = new Map(Object.entries(roles).map(([projectId, r]) => [projectId, typeof r === "string" ? { role: r, workspaceId } : r]));
  return {
    userId: overrides.userId ?? "usr_1",
    workspaceId,
    allowances: { projects: 10, keywords: 100, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20, ...overrides.allowances },
    membership: (id) => memberships.get(id),
  };
};
