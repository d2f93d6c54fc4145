import { conflict, withVersionRetry } from "@earshot/platform/core";
import { ProviderRejected } from "../collectors/provider-errors";
import type { Caller, IntegrationDeps } from "./deps";
import { pollNow } from "./poll";
import { commitConnection } from "./linkedin-connection-writes";
import { accessAsOwner, type LinkedinView, viewOf } from "./linkedin-get";
import { linkedinEvent } from "../events";
import { providerRefusal } from "./provider-refusals";
import { takeSyncSlot } from "./linkedin-sync-allowance";
import { needsReauthorization } from "./linkedin-token-lifecycle";

// One LinkedIn poll now, on the owner's request, metered against the workspace's daily allowance. The
// slot is taken before LinkedIn is called (so racing syncs never exceed the allowance) and given back
// when LinkedIn refused or failed the sync: the member got nothing for it, and LinkedIn's own limit is
// not ours to charge for. A sync that ran counts, whether it found posts or not. A connection whose
// authorization LinkedIn no longer accepts answers 409 telling the owner to connect again.

export interface SyncResult {
  integration: LinkedinView;
  postsFound: number;
}

const connectAgain = () =>
  conflict("LinkedIn no longer accepts this project's authorization (expired or revoked): connect the Page again with get_linkedin_connect_url.");

export const syncLinkedin = async (deps: IntegrationDeps, caller: Caller, projectId: string): Promise<SyncResult> => {
  const access = await accessAsOwner(deps, caller, projectId);
  const notConnected = () => conflict("LinkedIn is not connected for this project: authorize and select a Page first.");
  const current = await deps.collections.linkedin.findById(projectId);
  if (current?.status === "reauthorization_required") throw connectAgain();
  if (current?.status !== "connected") throw notConnected();
  const slot = await takeSyncSlot(deps, access.workspaceId, caller.allowances.linkedinSyncsPerDay);
  let postsFound: number;
  try {
    ({ postsFound } = await pollNow(deps, projectId, "linkedin"));
  } catch (err) {
    await slot.release();
    if (needsReauthorization(err)) throw connectAgain();
    if (err instanceof ProviderRejected) throw conflict(`LinkedIn refused the sync (${err.status}): reconnect the Page with get_linkedin_connect_url.`);
    throw providerRefusal(err, deps.clock.now()) ?? err;
  }
  const connection = await withVersionRetry(async () => {
    const latest = await deps.collections.linkedin.findById(projectId);
    // Disconnected while the sync ran: its posts were emitted, the ended connection stays as it is.
    if (latest?.status !== "connected") return latest;
    const now = deps.clock.now();
    const next = { ...latest, lastSyncAt: now, updatedAt: now };
    const event = linkedinEvent("integration.linkedin.synced", { projectId, connection: next, workspaceId: latest.workspaceId, organizationUrn: latest.page?.organizationUrn, postsFound, at: now });
    return commitConnection(deps, latest, next, [event]);
  });
  return { integration: await viewOf(deps, projectId, access.workspaceId, caller.allowances.linkedinSyncsPerDay, connection), postsFound };
};
