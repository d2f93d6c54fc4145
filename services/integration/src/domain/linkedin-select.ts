import { checkFields, conflict, type FieldError, validationFailed, withVersionRetry } from "@earshot/platform/core";
import { linkedinPageChoiceSchema } from "../fields";
import type { Caller, IntegrationDeps } from "./deps";
import { reconcileProject } from "./pollers";
import { commitConnection } from "./linkedin-connection-writes";
import { accessAsOwner, type LinkedinView, viewOf } from "./linkedin-get";
import { linkedinEvent } from "../events";

// The owner chooses which of the authorizing member's Pages the project collects from. Choosing the Page
// already chosen changes nothing and emits nothing; any other choice connects (event) and lets the
// scheduler start the LinkedIn poller.

/** The service's check of a Page choice: the edge's request schema is built from the same field. */
export const checkPageChoice = (input: { organizationUrn: string }): FieldError[] => checkFields(linkedinPageChoiceSchema, { organizationUrn: input.organizationUrn });

export const selectLinkedinPage = async (deps: IntegrationDeps, caller: Caller, input: { projectId: string; organizationUrn: string }): Promise<LinkedinView> => {
  const access = await accessAsOwner(deps, caller, input.projectId);
  const errors = checkPageChoice(input);
  if (errors.length > 0) throw validationFailed(errors);
  const { connection, changed } = await withVersionRetry(async () => {
    const current = await deps.collections.linkedin.findById(input.projectId);
    if (!current || current.status === "disconnected") {
      throw conflict("LinkedIn is not connected for this project: open the URL of get_linkedin_connect_url first.");
    }
    if (current.status === "reauthorization_required") {
      throw conflict("LinkedIn no longer accepts this project's authorization: connect again with get_linkedin_connect_url first.");
    }
    const page = current.pages.find((p) => p.organizationUrn === input.organizationUrn);
    if (!page) {
      const known = current.pages.map((p) => p.organizationUrn).join(", ") || "none";
      throw validationFailed([{ path: "organizationUrn", message: `is not a Page the authorizing LinkedIn member administers (theirs: ${known})` }]);
    }
    if (current.status === "connected" && current.page?.organizationUrn === page.organizationUrn) return { connection: current, changed: false };
    const now = deps.clock.now();
    const next = { ...current, status: "connected" as const, page, connectedAt: now, updatedAt: now };
    const event = linkedinEvent("integration.linkedin.connected", { projectId: input.projectId, workspaceId: current.workspaceId, organizationUrn: page.organizationUrn, at: now });
    return { connection: await commitConnection(deps, current, next, [event]), changed: true };
  });
  if (changed) await reconcileProject(deps, input.projectId);
  return viewOf(deps, input.projectId, access.workspaceId, caller.allowances.linkedinSyncsPerDay, connection);
};
