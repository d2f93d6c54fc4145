import { type FieldError, validationFailed, withVersionRetry } from "@earshot/platform/core";
import { ProviderRejected } from "../collectors/provider-errors";
import type { IntegrationDeps } from "./deps";
import { reconcileProject } from "./pollers";
import type { LinkedinConnectionDoc, LinkedinStateDoc } from "../store";
import { requireOwnedProject, stateIdOf } from "./linkedin-connect";
import { commitConnection } from "./linkedin-connection-writes";
import { type LinkedinView, viewOf } from "./linkedin-get";
import { linkedinEvent } from "../events";
import { issuePageChoice, type PageChoice } from "./linkedin-page-choice";
import { providerRefusal } from "./provider-refusals";

// LinkedIn sends the member's browser back here with the state and a code (or an error when they
// declined). No caller: the state is the proof, so it is checked strictly and used once, and the project
// must still be live and still owned by the member who asked. The tokens are stored sealed; the Pages the
// member administers are kept for the owner to choose one, through the API or, with the page-choice
// token given to this browser, on the callback page itself (`linkedin-page-choice.ts`).

export interface CallbackInput {
  state: string;
  code: string;
  error: string;
  errorDescription: string;
}

export interface CallbackResult {
  projectId: string;
  /** Who asked for the connect URL: the project's owner. */
  ownerId: string;
  integration: LinkedinView;
  /** For the callback page's form, when a Page is left to choose. */
  pageChoice?: PageChoice;
}

const refuse = (path: string, message: string) => validationFailed([{ path, message } satisfies FieldError], `The LinkedIn authorization could not be completed: ${path} ${message}.`);

/** Claims the state: exactly one callback gets it, whatever the outcome after. */
const claimState = async (deps: IntegrationDeps, state: string): Promise<LinkedinStateDoc> => {
  if (!state) throw refuse("state", "is missing: open the connect URL again");
  const now = deps.clock.now();
  const _id = stateIdOf(state);
  const found = await deps.collections.linkedinStates.findById(_id);
  if (!found) throw refuse("state", "is unknown: ask for a new connect URL with get_linkedin_connect_url");
  if (found.usedAt) throw refuse("state", "was already used: ask for a new connect URL");
  if (found.expiresAt.getTime() <= now.getTime()) throw refuse("state", "has expired (it lasts 10 minutes): ask for a new connect URL");
  const claimed = await deps.collections.linkedinStates.findOneAndUpdate({ _id, usedAt: { $exists: false } }, { $set: { usedAt: now } });
  if (!claimed) throw refuse("state", "was already used: ask for a new connect URL");
  return claimed;
};

export const completeLinkedinAuthorization = async (deps: IntegrationDeps, input: CallbackInput): Promise<CallbackResult> => {
  const claimed = await claimState(deps, input.state);
  if (input.error) {
    const why = input.errorDescription ? ` (${input.errorDescription})` : "";
    throw refuse("error", `says the LinkedIn member cancelled or declined the authorization: ${input.error}${why}`);
  }
  if (!input.code) throw refuse("code", "is missing: LinkedIn sent no authorization code");
  await requireOwnedProject(deps, claimed);
  const api = deps.linkedinApi;
  let tokens;
  let pages;
  try {
    tokens = await api.exchangeCode({ code: input.code, redirectUri: claimed.redirectUri });
    pages = await api.administeredPages(tokens.accessToken);
  } catch (err) {
    if (err instanceof ProviderRejected) throw refuse("code", `was refused by LinkedIn (${err.status}): start again from a new connect URL`);
    throw providerRefusal(err, deps.clock.now()) ?? err;
  }
  // Checked again: the exchange took a while, and an archival or deactivation may have landed meanwhile.
  const project = await requireOwnedProject(deps, claimed);
  const sealed = { accessToken: deps.sealer.seal(tokens.accessToken), refreshToken: tokens.refreshToken ? deps.sealer.seal(tokens.refreshToken) : undefined };
  const ownPages = pages.map((p) => ({ organizationUrn: p.organizationUrn, name: p.name }));
  const { before, connection } = await withVersionRetry(async () => {
    const now = deps.clock.now();
    const before = await deps.collections.linkedin.findById(claimed.projectId);
    // A re-authorization that still administers the chosen Page keeps it (fresh tokens, same collection),
    // also when LinkedIn had stopped accepting the previous one.
    const renewable = before?.status === "connected" || before?.status === "reauthorization_required";
    const kept = renewable && before.page && ownPages.some((p) => p.organizationUrn === before.page?.organizationUrn) ? before.page : undefined;
    const next: LinkedinConnectionDoc = {
      _id: claimed.projectId,
      workspaceId: project.workspaceId,
      ownerId: project.ownerId,
      status: kept ? "connected" : "pending_page",
      accessToken: sealed.accessToken,
      tokenExpiresAt: new Date(now.getTime() + tokens.expiresInSeconds * 1000),
      pages: ownPages,
      updatedAt: now,
    };
    if (sealed.refreshToken) next.refreshToken = sealed.refreshToken;
    if (kept) next.page = kept;
    if (kept && before?.connectedAt) next.connectedAt = before.connectedAt;
    if (before?.lastSyncAt) next.lastSyncAt = before.lastSyncAt;
    // Connected again after LinkedIn had stopped accepting the authorization: collection resumes.
    const events = kept && before?.status !== "connected" ? [linkedinEvent("integration.linkedin.connected", { projectId: claimed.projectId, connection: next, workspaceId: project.workspaceId, organizationUrn: kept.organizationUrn, at: now })] : [];
    return { before, connection: await commitConnection(deps, before, next, events) };
  });
  if ((before?.status === "connected") !== (connection.status === "connected")) await reconcileProject(deps, claimed.projectId);
  const pageChoice = connection.status === "pending_page" && connection.pages.length > 0 ? await issuePageChoice(deps, claimed) : undefined;
  return {
    projectId: claimed.projectId,
    ownerId: claimed.userId,
    integration: await viewOf(deps, claimed.projectId, project.workspaceId, 0, connection),
    ...(pageChoice ? { pageChoice } : {}),
  };
};
