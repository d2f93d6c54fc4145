import { withVersionRetry } from "@earshot/platform/core";
import { ProviderRejected } from "../collectors/provider-errors";
import type { IntegrationDeps } from "./deps";
import { reconcileProject } from "./pollers";
import type { LinkedinConnectionDoc } from "../store";
import { commitConnection } from "./linkedin-connection-writes";
import { linkedinEvent } from "../events";

// LinkedIn's access tokens last 60 days and its refresh tokens a year. Before a poll (or a sync) uses
// the member's token, a token expiring within a day is refreshed and the new one stored sealed. When
// LinkedIn no longer accepts the authorization (an API call answers 401, or the refresh token is
// refused as invalid_grant: expired or revoked), the connection becomes `reauthorization_required`:
// the tokens are dropped, the Page is kept for when the owner connects again, and the poller stops.

/** A token expiring within this margin is refreshed before it is used. */
export const TOKEN_REFRESH_MARGIN_MS = 24 * 3_600_000;

/** LinkedIn no longer accepts the connection's authorization: the owner must connect again. */
export class LinkedinReauthorizationRequired extends Error {
  /** As LinkedIn's own refusal of a token: recorded as the source's last error with this status. */
  readonly status = 401;
  constructor(detail: string) {
    super(`LinkedIn authorization must be renewed: ${detail}`);
    this.name = "LinkedinReauthorizationRequired";
  }
}

/** Whether a failure of a LinkedIn poll means the member's authorization is gone. */
export const needsReauthorization = (err: unknown): boolean =>
  err instanceof LinkedinReauthorizationRequired || (err instanceof ProviderRejected && err.source === "linkedin" && err.status === 401);

const refusedGrant = (err: unknown): boolean => err instanceof ProviderRejected && (err.status === 400 || err.status === 401) && err.body.includes("invalid_grant");

/** Stores refreshed tokens, unless the connection ended or was authorized again meanwhile. */
const storeRefreshed = async (deps: IntegrationDeps, used: LinkedinConnectionDoc, sealed: { accessToken: string; refreshToken?: string }, expiresAt: Date) => {
  await withVersionRetry(async () => {
    const latest = await deps.collections.linkedin.findById(used._id);
    if (latest?.status !== "connected" || latest.accessToken !== used.accessToken) return;
    const next: LinkedinConnectionDoc = { ...latest, accessToken: sealed.accessToken, tokenExpiresAt: expiresAt, updatedAt: deps.clock.now() };
    if (sealed.refreshToken) next.refreshToken = sealed.refreshToken;
    await commitConnection(deps, latest, next);
  });
};

/**
 * The member's access token for a call now: the stored one, or a refreshed one (stored) when it expires
 * within the margin. Throws LinkedinReauthorizationRequired when no usable token can be had; LinkedIn's
 * rate limits and outages on the refresh are thrown as they are (the poll backs off or retries).
 */
export const usableLinkedinToken = async (deps: IntegrationDeps, connection: LinkedinConnectionDoc, signal?: AbortSignal): Promise<string> => {
  if (!connection.accessToken) throw new LinkedinReauthorizationRequired("no access token is stored");
  const now = deps.clock.now();
  const expiresAt = connection.tokenExpiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  if (expiresAt - now.getTime() > TOKEN_REFRESH_MARGIN_MS) return deps.sealer.open(connection.accessToken);
  if (!connection.refreshToken) {
    // Nothing to refresh with: use the token while it lasts.
    if (expiresAt > now.getTime()) return deps.sealer.open(connection.accessToken);
    throw new LinkedinReauthorizationRequired("the access token expired and there is no refresh token");
  }
  let tokens;
  try {
    tokens = await deps.linkedinApi.refreshTokens({ refreshToken: deps.sealer.open(connection.refreshToken), ...(signal ? { signal } : {}) });
  } catch (err) {
    if (refusedGrant(err)) throw new LinkedinReauthorizationRequired("LinkedIn refused the refresh token (expired or revoked)");
    throw err;
  }
  const sealed = { accessToken: deps.sealer.seal(tokens.accessToken), ...(tokens.refreshToken ? { refreshToken: deps.sealer.seal(tokens.refreshToken) } : {}) };
  await storeRefreshed(deps, connection, sealed, new Date(deps.clock.now().getTime() + tokens.expiresInSeconds * 1000));
  return tokens.accessToken;
};

/**
 * Marks the project's connection `reauthorization_required` (tokens dropped, Page kept), with the event
 * `integration.linkedin.disconnected` (reason `reauthorization_required`), and stops its poller. A
 * connection already ended or marked is left as it is.
 */
export const requireLinkedinReauthorization = async (deps: IntegrationDeps, projectId: string): Promise<void> => {
  const marked = await withVersionRetry(async () => {
    const current = await deps.collections.linkedin.findById(projectId);
    if (!current || (current.status !== "connected" && current.status !== "pending_page")) return false;
    const now = deps.clock.now();
    const { accessToken: _access, refreshToken: _refresh, tokenExpiresAt: _expiry, ...kept } = current;
    const next: LinkedinConnectionDoc = { ...kept, status: "reauthorization_required", updatedAt: now };
    const event = linkedinEvent("integration.linkedin.disconnected", { projectId, connection: next, workspaceId: current.workspaceId, organizationUrn: current.page?.organizationUrn, reason: "reauthorization_required", at: now });
    await commitConnection(deps, current, next, [event]);
    return true;
  });
  if (marked) await reconcileProject(deps, projectId);
};
