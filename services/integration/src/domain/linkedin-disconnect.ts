import { withVersionRetry } from "@earshot/platform/core";
import type { Caller, IntegrationDeps } from "./deps";
import { reconcileProject } from "./pollers";
import type { LinkedinConnectionDoc } from "../store";
import { commitConnection, strippedConnection } from "./linkedin-connection-writes";
import { accessAsOwner, type LinkedinView, viewOf } from "./linkedin-get";
import { type DisconnectReason, linkedinEvent } from "../events";

// A connection ends when its owner asks, its project is archived or its owner's account is deactivated:
// the tokens, the Pages and the Page are dropped (nothing of the member's authorization stays), and the
// scheduler stops the LinkedIn poller. Ending an ended connection changes nothing and emits nothing, so
// a replayed archival or a second disconnect is harmless.

export const endLinkedinConnection = async (deps: IntegrationDeps, projectId: string, reason: DisconnectReason): Promise<LinkedinConnectionDoc | null> => {
  const { connection, ended } = await withVersionRetry(async () => {
    const current = await deps.collections.linkedin.findById(projectId);
    if (!current || current.status === "disconnected") return { connection: current, ended: false };
    const now = deps.clock.now();
    const next = strippedConnection(current, now);
    const event = linkedinEvent("integration.linkedin.disconnected", {
      projectId,
      connection: next,
      workspaceId: current.workspaceId,
      organizationUrn: current.page?.organizationUrn,
      reason,
      at: now,
    });
    return { connection: await commitConnection(deps, current, next, [event]), ended: true };
  });
  // States still in flight for the project would otherwise reconnect it after an archival.
  if (reason === "project_archived") await deps.collections.linkedinStates.deleteMany({ projectId });
  if (ended) await reconcileProject(deps, projectId);
  return connection;
};

export const disconnectLinkedin = async (deps: IntegrationDeps, caller: Caller, projectId: string): Promise<LinkedinView> => {
  const access = await accessAsOwner(deps, caller, projectId);
  const connection = await endLinkedinConnection(deps, projectId, "disconnected");
  return viewOf(deps, projectId, access.workspaceId, caller.allowances.linkedinSyncsPerDay, connection);
};
