import { createHash, randomBytes } from "node:crypto";
import { unavailable, validationFailed } from "@earshot/platform/core";
import type { Caller, IntegrationDeps } from "./deps";
import type { LinkedinStateDoc } from "../store";
import { accessAsOwner } from "./linkedin-get";

// The start of an authorization: a random 256-bit state that binds the LinkedIn callback to the project
// and its owner. Only its SHA-256 is stored, so a read of the store cannot complete anyone's
// authorization; it expires after 10 minutes (a TTL index drops it later) and is used once.

export const STATE_TTL_MS = 10 * 60_000;

export const stateIdOf = (state: string): string => createHash("sha256").update(state).digest("hex");

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
};

export interface ConnectUrl {
  url: string;
  expiresAt: Date;
}

export const getLinkedinConnectUrl = async (deps: IntegrationDeps, caller: Caller, input: { projectId: string; redirectUri: string }): Promise<ConnectUrl> => {
  const access = await accessAsOwner(deps, caller, input.projectId);
  if (!isHttpUrl(input.redirectUri)) throw validationFailed([{ path: "redirectUri", message: "must be an absolute http(s) URL" }]);
  if (!deps.linkedinApi.configured) {
    throw unavailable("LinkedIn is not configured on this Earshot: set EARSHOT_LINKEDIN_CLIENT_ID and EARSHOT_LINKEDIN_CLIENT_SECRET.");
  }
  const state = randomBytes(32).toString("base64url");
  const now = deps.clock.now();
  const doc: LinkedinStateDoc = {
    _id: stateIdOf(state),
    projectId: input.projectId,
    workspaceId: access.workspaceId,
    userId: caller.userId,
    redirectUri: input.redirectUri,
    expiresAt: new Date(now.getTime() + STATE_TTL_MS),
  };
  await deps.collections.linkedinStates.insertOne(doc);
  return { url: deps.linkedinApi.authorizationUrl({ state, redirectUri: input.redirectUri }), expiresAt: doc.expiresAt };
};

const stateRefused = (message: string) => validationFailed([{ path: "state", message }], `The LinkedIn authorization could not be completed: state ${message}.`);

/**
 * The project a state names, if it is still live and still owned by the member who asked for it: checked
 * at the callback and again when its page-choice token chooses the Page.
 */
export const requireOwnedProject = async (deps: IntegrationDeps, claimed: LinkedinStateDoc) => {
  const project = await deps.collections.projects.findById(claimed.projectId);
  if (!project || project.status === "archived") throw stateRefused("names a project that was archived or no longer exists");
  if (project.ownerId !== claimed.userId) throw stateRefused("was issued to someone who no longer owns this project");
  return project;
};
