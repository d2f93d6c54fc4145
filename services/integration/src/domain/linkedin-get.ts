import { validationFailed } from "@earshot/platform/core";
import { accessProject, type ProjectAccess } from "./access";
import type { Caller, IntegrationDeps } from "./deps";
import type { LinkedinConnectionDoc, LinkedinPageDoc, LinkedinStatus } from "../store";
import { syncsOn } from "./linkedin-sync-allowance";

// A project's LinkedIn connection as its owner sees it: never the tokens, with today's syncs left of the
// workspace's allowance.

export interface LinkedinView {
  projectId: string;
  status: LinkedinStatus;
  pages: LinkedinPageDoc[];
  page?: LinkedinPageDoc;
  connectedAt?: Date;
  lastSyncAt?: Date;
  tokenExpiresAt?: Date;
  syncsPerDay: number;
  syncsLeftToday: number;
}

/** LinkedIn management is the owner's; a non-member (or an archived project) answers not_found. */
export const accessAsOwner = (deps: IntegrationDeps, caller: Caller, projectId: string): Promise<ProjectAccess> => {
  if (!projectId) throw validationFailed([{ path: "projectId", message: "is required" }]);
  return accessProject(deps, caller, projectId, "owner");
};

/** The connection as its owner sees it, given the caller's allowance and the syncs used today. */
export const connectionView = (projectId: string, connection: LinkedinConnectionDoc | null, syncsPerDay: number, used: number): LinkedinView => {
  const view: LinkedinView = {
    projectId,
    status: connection?.status ?? "disconnected",
    pages: connection?.pages ?? [],
    syncsPerDay,
    syncsLeftToday: Math.max(0, syncsPerDay - used),
  };
  if (connection?.page) view.page = connection.page;
  if (connection?.connectedAt) view.connectedAt = connection.connectedAt;
  if (connection?.lastSyncAt) view.lastSyncAt = connection.lastSyncAt;
  if (connection?.tokenExpiresAt && connection.status !== "disconnected") view.tokenExpiresAt = connection.tokenExpiresAt;
  return view;
};

/** `syncsPerDay` is the workspace's allowance when a caller brought it (the callback has none: 0). */
export const viewOf = async (deps: IntegrationDeps, projectId: string, workspaceId: string, syncsPerDay: number, connection: LinkedinConnectionDoc | null): Promise<LinkedinView> =>
  connectionView(projectId, connection, syncsPerDay, await syncsOn(deps, workspaceId, deps.clock.now()));

export const getLinkedinIntegration = async (deps: IntegrationDeps, caller: Caller, projectId: string): Promise<LinkedinView> => {
  const access = await accessAsOwner(deps, caller, projectId);
  const connection = await deps.collections.linkedin.findById(projectId);
  return viewOf(deps, projectId, access.workspaceId, caller.allowances.linkedinSyncsPerDay, connection);
};
