import type { ProjectDeps } from "./deps";

/**
 * Seats: the distinct people in a workspace's projects other than its owner, counting members and
 * pending invitations (an invitation holds a seat until it is accepted, revoked or expires).
 */
export const seatHolders = async (deps: ProjectDeps, workspaceId: string): Promise<Set<string>> => {
  const now = deps.clock.now();
  const rows = await deps.collections.members.find({ workspaceId, role: { $ne: "owner" } });
  const holders = new Set<string>();
  for (const r of rows) {
    if (r.memberType === "member") holders.add(r.email.toLowerCase());
    else if (r.status === "pending" && r.expiresAt && r.expiresAt.getTime() > now.getTime()) holders.add(r.email.toLowerCase());
  }
  return holders;
};

export const workspaceUsage = async (deps: ProjectDeps, workspaceId: string): Promise<{ projects: number; seats: number }> => {
  const [projects, seats] = await Promise.all([
    deps.collections.projects.count({ workspaceId, status: { $ne: "archived" } }),
    seatHolders(deps, workspaceId),
  ]);
  return { projects, seats: seats.size };
};
