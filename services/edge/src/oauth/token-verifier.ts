import { accountV1 } from "@earshot/proto";
import { DomainError, isDomainError } from "@earshot/platform";
import { InvalidGrantError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import jwt from "jsonwebtoken";
import type { Backends } from "../backends";
import type { TokenVerifier } from "../pipeline/credentials";
import type { EarshotOAuthProvider } from "./provider";

// OAuth access tokens as credentials of the pipeline. The token names the user, scopes, client, grant
// family and audience; the account service confirms the user is still active and supplies the plan.

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** The account a token names, when it exists and is active; a missing one is no different from a deactivated one. */
export const activeAccountOf = async (backends: Backends, userId: string) => {
  try {
    const found = await backends.account.getUser({ id: userId });
    return found.user?.status === accountV1.UserStatus.USER_STATUS_ACTIVE ? found : undefined;
  } catch (err) {
    if (isDomainError(err) && err.code === "not_found") return undefined;
    throw err;
  }
};

export const oauthTokenVerifier = (provider: EarshotOAuthProvider, backends: Backends): TokenVerifier => ({
  accepts: (token) => JWT_SHAPE.test(token),
  verify: async (token) => {
    const claims = await provider.verifyClaims(token).catch((err: unknown) => {
      // Only a token that fails verification is unauthorized; a store that could not answer says nothing
      // about the token, and a 401 would make the client throw a valid one away.
      if (err instanceof InvalidGrantError || err instanceof jwt.JsonWebTokenError) {
        throw new DomainError("unauthorized", "The access token is invalid, expired or revoked.");
      }
      throw new DomainError("unavailable", "The access token could not be checked right now; retry shortly.", { cause: err });
    });
    const found = await activeAccountOf(backends, claims.sub);
    const user = found?.user;
    const workspace = found?.workspace;
    if (!user) throw new DomainError("unauthorized", "The access token is invalid, expired or revoked.");
    const a = workspace?.allowances;
    return {
      userId: user.id,
      workspaceId: user.workspaceId,
      email: user.email,
      scopes: claims.scope.split(" ").filter(Boolean),
      credentialId: claims.fam,
      credentialType: "oauth",
      audience: claims.aud,
      allowances: {
        projects: a?.projects ?? 0,
        keywords: a?.keywords ?? 0,
        seats: a?.seats ?? 0,
        webhookDeliveriesPerDay: a?.webhookDeliveriesPerDay ?? 0,
        linkedinSyncsPerDay: a?.linkedinSyncsPerDay ?? 0,
      },
    };
  },
});
