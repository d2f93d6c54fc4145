import { type Logger, runWithCaller } from "@earshot/platform";
import type { commonV1 } from "@earshot/proto";
import type { Backends } from "../../backends";
import { activeAccountOf } from "../../oauth/token-verifier";

// What the callback pages tell the person about their project: its name and their plan's daily LinkedIn
// syncs. The browser brings no credential; the integration service vouched for the connect state (or
// its page-choice token), which names the owner who asked for it, so the project's name is read acting
// for that owner, with their own memberships, as any request of theirs would. When that cannot be
// answered the page still works: it shows the project id and leaves the allowance out.

export interface OwnerContext {
  projectName?: string;
  syncsPerDay?: number;
}

export const ownerContext = async (backends: Backends, logger: Logger, ownerId: string, projectId: string): Promise<OwnerContext> => {
  try {
    const account = ownerId ? await activeAccountOf(backends, ownerId) : undefined;
    if (!account?.user) return {};
    const { user, workspace } = account;
    const allowances: commonV1.Allowances = workspace?.allowances ?? { projects: 0, keywords: 0, seats: 0, webhookDeliveriesPerDay: 0, linkedinSyncsPerDay: 0 };
    const { memberships } = await backends.project.listMemberships({ userId: user.id });
    const caller: commonV1.Caller = { userId: user.id, workspaceId: user.workspaceId, email: user.email, memberships, allowances };
    const { project } = await runWithCaller(caller, () => backends.project.getProject({ projectId }));
    return { ...(project?.name ? { projectName: project.name } : {}), syncsPerDay: allowances.linkedinSyncsPerDay };
  } catch (err) {
    logger.warn({ err, projectId }, "the LinkedIn page could not read the project's name");
    return {};
  }
};
