import { checkFields, conflict, type FieldError, validationFailed, withVersionRetry } from "@earshot/platform/core";
import { linkedinPageChoiceSchema } from "../fields";
import type { Caller, IntegrationDeps } from "./deps";
import { reconcileProject } from "./pollers";
import { commitConnection } from "./linkedin-connection-writes";
import { accessAsOwner, type LinkedinView, viewOf } from "./linkedin-get";
import { linkedinEvent } from "../events";
import type { LinkedinConnectionDoc, LinkedinPageDoc } from "../store";

// The owner chooses which of the authorizing member's Pages the project collects from, through the API
// (here) or the callback page's form (`linkedin-page-choice.ts`). Choosing the Page already chosen
// changes nothing and emits nothing; any other choice connects (event) and lets the scheduler start the
// LinkedIn poller.

/** The service's check of a Page choice: the edge's request schema is built from the same field. */
export const checkPageChoice = (input: { organizationUrn: string }): FieldError[] => checkFields(linkedinPageChoiceSchema, { organizationUrn: input.organizationUrn });

/**
 * Makes `organizationUrn` the project's Page: connected, with the event, when it was not already. The
 * connection must be authorized and the Page one of the authorizing member's.
 */
export const choosePage = async (deps: IntegrationDeps, projectId: string, organizationUrn: string): Promise<{ connection: LinkedinConnectionDoc; changed: boolean }> => {
  const result = await withVersionRetry(async () => {
    const { current, page } = pageToChoose(await deps.collections.linkedin.findById(projectId), organizationUrn);
    if (current.status === "connected" && current.page?.organizationUrn === page.organizationUrn) return { connection: current, changed: false };
    const now = deps.clock.now();
    const next = { ...current, status: "connected" as const, page, connectedAt: now, updatedAt: now };
    const event = linkedinEvent("integration.linkedin.connected", { projectId, connection: next, workspaceId: current.workspaceId, organizationUrn: page.organizationUrn, at: now });
    return { connection: await commitConnection(deps, current, next, [event]), changed: true };
  });
  if (result.changed) await reconcileProject(deps, projectId);
  return result;
};

/** The Page of the connection named `organizationUrn`, or the refusal that says why it cannot be chosen. */
export const pageToChoose = (current: LinkedinConnectionDoc | null, organizationUrn: string): { current: LinkedinConnectionDoc; page: LinkedinPageDoc } => {
  if (!current || current.status === "disconnected") {
    throw conflict("LinkedIn is not connected for this project: open the URL of get_linkedin_connect_url first.");
  }
  if (current.status === "reauthorization_required") {
    throw conflict("LinkedIn no longer accepts this project's authorization: connect again with get_linkedin_connect_url first.");
  }
  const page = current.pages.find((p) => p.organizationUrn === organizationUrn);
  if (!page) {
    const known = current.pages.map((p) => p.organizationUrn).join(", ") || "none";
    throw validationFailed([{ path: "organizationUrn", message: `is not a Page the authorizing LinkedIn member administers (theirs: ${known})` }]);
  }
  return { current, page };
};

export const selectLinkedinPage = async (deps: IntegrationDeps, caller: Caller, input: { projectId: string; organizationUrn: string }): Promise<LinkedinView> => {
  const access = await accessAsOwner(deps, caller, input.projectId);
  const errors = checkPageChoice(input);
  if (errors.length > 0) throw validationFailed(errors);
  const { connection } = await choosePage(deps, input.projectId, input.organizationUrn);
  return viewOf(deps, input.projectId, access.workspaceId, caller.allowances.linkedinSyncsPerDay, connection);
};
