import type { Collection, Doc, DocumentStore } from "@earshot/platform";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";

// What the authorization server remembers, in the edge's store (shared by every replica).

export interface ClientDoc extends Doc {
  info: OAuthClientInformationFull;
  createdAt: Date;
}

/** An authorization request waiting for the person to sign in and consent. */
export interface RequestDoc extends Doc {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  state?: string;
  resource: string;
  /** The origin the authorization request reached: the issuer of everything issued from it. */
  issuer?: string;
  expiresAt: Date;
}

/** `_id` is the SHA-256 of the code. */
export interface CodeDoc extends Doc {
  clientId: string;
  userId: string;
  scopes: string[];
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  issuer?: string;
  familyId: string;
  expiresAt: Date;
  usedAt?: Date;
}

/** A grant: every token pair issued from one authorization shares its family; revoking it kills them all. */
export interface FamilyDoc extends Doc {
  clientId: string;
  userId: string;
  scopes: string[];
  resource: string;
  issuer?: string;
  createdAt: Date;
  revokedAt?: Date;
  expiresAt: Date;
}

/** `_id` is the SHA-256 of the refresh token. */
export interface RefreshDoc extends Doc {
  familyId: string;
  clientId: string;
  expiresAt: Date;
  usedAt?: Date;
}

export interface OAuthCollections {
  clients: Collection<ClientDoc>;
  requests: Collection<RequestDoc>;
  codes: Collection<CodeDoc>;
  families: Collection<FamilyDoc>;
  refreshTokens: Collection<RefreshDoc>;
}

export const openOAuthCollections = async (store: DocumentStore): Promise<OAuthCollections> => {
  const c: OAuthCollections = {
    clients: store.collection<ClientDoc>("oauth_clients"),
    requests: store.collection<RequestDoc>("oauth_requests"),
    codes: store.collection<CodeDoc>("oauth_codes"),
    families: store.collection<FamilyDoc>("oauth_families"),
    refreshTokens: store.collection<RefreshDoc>("oauth_refresh_tokens"),
  };
  for (const col of [c.requests, c.codes, c.families, c.refreshTokens]) {
    await (col as Collection<Doc & { expiresAt: Date }>).ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  }
  await c.refreshTokens.ensureIndex({ fields: { familyId: 1 } });
  return c;
};
