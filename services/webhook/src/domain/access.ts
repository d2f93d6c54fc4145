import { accessProjectOf, notFound } from "@earshot/platform/core";
import type { EndpointDoc } from "../store";
import type { Caller, ProjectRole, WebhookDeps } from "./deps";

// Who may see and change an endpoint: a project-scoped one follows the project's roles (viewers read,
// editors and owners write); a workspace-scoped one belongs to the workspace's owner alone. Anything else
// answers not_found, exactly like a missing endpoint.

/** The project's access check, by the caller's memberships (they leave archived projects out). */
export const accessEndpointProject = (caller: Caller, projectId: string, minimum: ProjectRole) =>
  accessProjectOf(caller, projectId, minimum, async () => null);

export const loadEndpoint = async (deps: WebhookDeps, caller: Caller, endpointId: string, minimum: ProjectRole): Promise<EndpointDoc> => {
  const endpoint = await deps.collections.endpoints.findById(endpointId);
  if (!endpoint) throw notFound("Webhook");
  if (endpoint.projectId) await accessProjectOf(caller, endpoint.projectId, minimum, async () => null, "Webhook");
  else if (endpoint.workspaceId !== caller.workspaceId) throw notFound("Webhook");
  return endpoint;
};
