import type { commonV1 } from "@earshot/proto";

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
