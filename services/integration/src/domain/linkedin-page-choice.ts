import { randomBytes } from "node:crypto";
import { type FieldError, validationFailed } from "@earshot/platform/core";
import type { IntegrationDeps } from "./deps";
import { requireOwnedProject, stateIdOf } from "./linkedin-connect";
import { type LinkedinView, viewOf } from "./linkedin-get";
import { checkPageChoice, choosePage, pageToChoose } from "./linkedin-select";
import type { LinkedinStateDoc } from "../store";

// The callback page lets the person who just authorized choose the Page there, with no API credential:
// the callback gives their browser a page-choice token bound to the connect state. Like the state, only
// its SHA-256 is stored, it chooses once, and it expires with the state (10 minutes after the connect
// URL was issued). The project must still be live and owned by whoever asked for the connect URL.

export interface PageChoice {
  token: string;
  expiresAt: Date;
}

export interface PageChoiceResult {
  projectId: string;
  ownerId: string;
  integration: LinkedinView;
}

const refuse = (message: string) =>
  validationFailed([{ path: "pageChoiceToken", message } satisfies FieldError], `The LinkedIn Page could not be chosen: pageChoiceToken ${message}.`);

/** Binds a new page-choice token to the claimed connect state. */
export const issuePageChoice = async (deps: IntegrationDeps, state: LinkedinStateDoc): Promise<PageChoice> => {
  const token = randomBytes(32).toString("base64url");
  await deps.collections.linkedinStates.updateOne({ _id: state._id }, { $set: { pageChoiceId: stateIdOf(token) } });
  return { token, expiresAt: state.expiresAt };
};

/** Claims the token: exactly one choice gets it. */
const claimPageChoice = async (deps: IntegrationDeps, token: string, organizationUrn: string): Promise<LinkedinStateDoc> => {
  if (!token) throw refuse("is missing: connect LinkedIn again to choose a Page");
  const found = await deps.collections.linkedinStates.findOne({ pageChoiceId: stateIdOf(token) });
  if (!found) throw refuse("is unknown or expired: connect LinkedIn again to choose a Page");
  if (found.pageChosenAt) throw refuse("was already used: the Page was chosen; to choose another, connect LinkedIn again or use select_linkedin_page");
  const now = deps.clock.now();
  if (found.expiresAt.getTime() <= now.getTime()) throw refuse("has expired (the connect URL lasts 10 minutes): connect LinkedIn again to choose a Page");
  // A choice that cannot succeed leaves the token for a corrected one.
  pageToChoose(await deps.collections.linkedin.findById(found.projectId), organizationUrn);
  const claimed = await deps.collections.linkedinStates.findOneAndUpdate({ _id: found._id, pageChosenAt: { $exists: false } }, { $set: { pageChosenAt: now } });
  if (!claimed) throw refuse("was already used: the Page was chosen; to choose another, connect LinkedIn again or use select_linkedin_page");
  return claimed;
};

export const chooseLinkedinPageByToken = async (deps: IntegrationDeps, input: { pageChoiceToken: string; organizationUrn: string }): Promise<PageChoiceResult> => {
  const errors = checkPageChoice(input);
  if (errors.length > 0) throw validationFailed(errors);
  const claimed = await claimPageChoice(deps, input.pageChoiceToken, input.organizationUrn);
  const project = await requireOwnedProject(deps, claimed);
  const { connection } = await choosePage(deps, claimed.projectId, input.organizationUrn);
  // No caller, so no plan: the edge tells the person their allowance.
  return { projectId: claimed.projectId, ownerId: claimed.userId, integration: await viewOf(deps, claimed.projectId, project.workspaceId, 0, connection) };
};
