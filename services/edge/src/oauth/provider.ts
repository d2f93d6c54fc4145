import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ALL_SCOPES, type Clock, newId } from "@earshot/platform";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import { InvalidClientError, InvalidGrantError, InvalidRequestError, InvalidScopeError, InvalidTargetError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Response } from "express";
import jwt from "jsonwebtoken";
import { type ClientMetadataFetcher, isClientIdUrl } from "./client-metadata";
import type { FamilyDoc, OAuthCollections } from "./oauth-store";
import type { SigningKeys } from "./signing-keys";

// The authorization server's logic behind the SDK's endpoint handlers: clients (registered or by
// metadata document), authorization requests handed to our sign-in and consent pages, single-use codes,
// short-lived JWT access tokens bound to one resource, and refresh tokens that rotate on every use —
// a rotated one presented again revokes its whole family, live access tokens included.

export const ACCESS_TOKEN_SECONDS = 15 * 60;
const REFRESH_TOKEN_DAYS = 30;
const CODE_SECONDS = 60;
const REQUEST_SECONDS = 10 * 60;
/** A second refresh with the same token this soon is a client's concurrent retry: it loses without revoking. */
const CONCURRENT_REFRESH_MS = 2000;

export const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");

export interface AccessTokenClaims {
  sub: string;
  aud: string;
  scope: string;
  client_id: string;
  fam: string;
  jti: string;
  iss: string;
  exp: number;
}

export interface ProviderOptions {
  collections: OAuthCollections;
  keys: SigningKeys;
  clock: Clock;
  issuer: string;
  /** Resources tokens may be issued for: `{origin}/mcp` and `{origin}/api/v1`. */
  resources: string[];
  metadataFetcher: ClientMetadataFetcher;
  /** Told when a family is revoked, so cached verifications end at once on this replica. */
  onFamilyRevoked?: (family: FamilyDoc) => void;
}

export class EarshotOAuthProvider implements OAuthServerProvider {
  readonly clientsStore: OAuthRegisteredClientsStore;

  constructor(private readonly o: ProviderOptions) {
    const { collections, clock, metadataFetcher } = o;
    this.clientsStore = {
      getClient: async (clientId) => {
        if (isClientIdUrl(clientId)) return metadataFetcher.fetch(clientId).catch(() => undefined);
        return (await collections.clients.findById(clientId))?.info;
      },
      registerClient: async (client) => {
        const info = { ...client, client_id: `oac_${randomUUID()}`, client_id_issued_at: Math.floor(clock.now().getTime() / 1000) } as OAuthClientInformationFull;
        await collections.clients.insertOne({ _id: info.client_id, info, createdAt: clock.now() });
        return info;
      },
    };
  }

  private now(): Date {
    return this.o.clock.now();
  }

  private resourceOf(resource: URL | undefined): string {
    // Without a resource indicator a token is for the MCP server, the resource this flow exists for.
    const value = (resource?.href ?? this.o.resources[0] ?? "").replace(/\/$/, "");
    if (!this.o.resources.includes(value)) throw new InvalidTargetError(`Tokens are issued for ${this.o.resources.join(" or ")} only.`);
    return value;
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const scopes = params.scopes?.length ? params.scopes : (client.scope?.split(" ") ?? ["mcp"]);
    const unknown = scopes.filter((s) => !ALL_SCOPES.includes(s));
    if (unknown.length > 0) throw new InvalidScopeError(`Unknown scopes: ${unknown.join(" ")}`);
    const resource = this.resourceOf(params.resource);
    const id = randomBytes(18).toString("base64url");
    await this.o.collections.requests.insertOne({
      _id: id,
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      scopes,
      ...(params.state !== undefined ? { state: params.state } : {}),
      resource,
      expiresAt: new Date(this.now().getTime() + REQUEST_SECONDS * 1000),
    });
    res.redirect(302, `/oauth/consent?request=${id}`);
  }

  /** Called by the consent page when the person approves: a single-use code for the client. */
  async issueCode(requestId: string, userId: string): Promise<{ redirect: string }> {
    const request = await this.o.collections.requests.findById(requestId);
    if (!request) throw new InvalidRequestError("The authorization request expired; start again from the application.");
    await this.o.collections.requests.deleteOne({ _id: requestId });
    const code = randomBytes(32).toString("base64url");
    await this.o.collections.codes.insertOne({
      _id: sha256(code),
      clientId: request.clientId,
      userId,
      scopes: request.scopes,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      familyId: newId("fam"),
      expiresAt: new Date(this.now().getTime() + CODE_SECONDS * 1000),
    });
    return { redirect: this.redirectWith(request.redirectUri, { code, state: request.state }) };
  }

  /** Called by the consent page when the person declines. */
  async deny(requestId: string): Promise<{ redirect: string }> {
    const request = await this.o.collections.requests.findById(requestId);
    if (!request) throw new InvalidRequestError("The authorization request expired.");
    await this.o.collections.requests.deleteOne({ _id: requestId });
    return { redirect: this.redirectWith(request.redirectUri, { error: "access_denied", state: request.state }) };
  }

  /** RFC 9207: the issuer travels with the response so clients can detect mix-ups. */
  private redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    url.searchParams.set("iss", this.o.issuer);
    return url.href;
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
    const code = await this.o.collections.codes.findById(sha256(authorizationCode));
    if (!code || code.clientId !== client.client_id) throw new InvalidGrantError("Unknown authorization code.");
    return code.codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const now = this.now();
    const claimed = await this.o.collections.codes.findOneAndUpdate(
      { _id: sha256(authorizationCode), usedAt: { $exists: false } },
      { $set: { usedAt: now } },
    );
    if (!claimed) {
      // A code presented twice may have been stolen: the tokens issued for it die with it.
      const used = await this.o.collections.codes.findById(sha256(authorizationCode));
      if (used) await this.revokeFamily(used.familyId);
      throw new InvalidGrantError("The authorization code is invalid or was already used.");
    }
    if (claimed.clientId !== client.client_id) throw new InvalidGrantError("The code was issued to another client.");
    if (claimed.expiresAt.getTime() <= now.getTime()) throw new InvalidGrantError("The authorization code has expired.");
    if (redirectUri === undefined || redirectUri !== claimed.redirectUri) throw new InvalidGrantError("redirect_uri does not match the authorization request.");
    if (resource && this.resourceOf(resource) !== claimed.resource) throw new InvalidTargetError("resource does not match the authorization request.");
    const family: FamilyDoc = {
      _id: claimed.familyId,
      clientId: client.client_id,
      userId: claimed.userId,
      scopes: claimed.scopes,
      resource: claimed.resource,
      createdAt: now,
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_DAYS * 86400_000),
    };
    await this.o.collections.families.insertOne(family);
    return this.issueTokens(family);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    const now = this.now();
    const id = sha256(refreshToken);
    const claimed = await this.o.collections.refreshTokens.findOneAndUpdate({ _id: id, usedAt: { $exists: false } }, { $set: { usedAt: now } });
    if (!claimed) {
      const seen = await this.o.collections.refreshTokens.findById(id);
      if (seen?.usedAt && now.getTime() - seen.usedAt.getTime() > CONCURRENT_REFRESH_MS) await this.revokeFamily(seen.familyId);
      throw new InvalidGrantError("The refresh token is invalid or was already used.");
    }
    const family = await this.o.collections.families.findById(claimed.familyId);
    if (!family || family.revokedAt || claimed.clientId !== client.client_id || claimed.expiresAt.getTime() <= now.getTime()) {
      throw new InvalidGrantError("The refresh token is invalid or was revoked.");
    }
    if (resource && this.resourceOf(resource) !== family.resource) throw new InvalidTargetError("resource does not match the grant.");
    if (scopes?.length && scopes.some((s) => !family.scopes.includes(s))) throw new InvalidScopeError("A refresh cannot widen the granted scopes.");
    return this.issueTokens(family, scopes?.length ? scopes : family.scopes);
  }

  private async issueTokens(family: FamilyDoc, scopes = family.scopes): Promise<OAuthTokens> {
    const now = this.now();
    const refresh = `ert_${randomBytes(32).toString("base64url")}`;
    await this.o.collections.refreshTokens.insertOne({
      _id: sha256(refresh),
      familyId: family._id,
      clientId: family.clientId,
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_DAYS * 86400_000),
    });
    const claims = {
      sub: family.userId,
      aud: family.resource,
      scope: scopes.join(" "),
      client_id: family.clientId,
      fam: family._id,
      jti: randomUUID(),
      iss: this.o.issuer,
      iat: Math.floor(now.getTime() / 1000),
      exp: Math.floor(now.getTime() / 1000) + ACCESS_TOKEN_SECONDS,
    };
    const key = this.o.keys.current;
    const accessToken = jwt.sign(claims, key.privateKeyPem, { algorithm: "RS256", keyid: key.kid });
    return { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refresh, scope: claims.scope };
  }

  async revokeFamily(familyId: string): Promise<void> {
    const family = await this.o.collections.families.findOneAndUpdate({ _id: familyId, revokedAt: { $exists: false } }, { $set: { revokedAt: this.now() } });
    if (family) this.o.onFamilyRevoked?.(family);
  }

  /** Verifies signature, issuer, expiry and that the family is live; the audience is the caller's to check. */
  async verifyClaims(token: string): Promise<AccessTokenClaims> {
    const decoded = jwt.decode(token, { complete: true });
    const kid = decoded && typeof decoded === "object" ? decoded.header.kid : undefined;
    const publicKey = kid ? this.o.keys.publicKeyFor(kid) : undefined;
    if (!publicKey) throw new InvalidGrantError("Unknown signing key.");
    const claims = jwt.verify(token, publicKey, {
      algorithms: ["RS256"],
      issuer: this.o.issuer,
      clockTimestamp: Math.floor(this.now().getTime() / 1000),
    }) as AccessTokenClaims;
    const family = await this.o.collections.families.findById(claims.fam);
    if (!family || family.revokedAt) throw new InvalidGrantError("The token was revoked.");
    return claims;
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const claims = await this.verifyClaims(token);
    return { token, clientId: claims.client_id, scopes: claims.scope.split(" ").filter(Boolean), expiresAt: claims.exp, resource: new URL(claims.aud) };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const refresh = await this.o.collections.refreshTokens.findById(sha256(request.token));
    if (refresh) {
      if (refresh.clientId === client.client_id) await this.revokeFamily(refresh.familyId);
      return;
    }
    // An access token: revoking it ends its grant. Unknown or foreign tokens are ignored (RFC 7009: 200).
    const claims = await this.verifyClaims(request.token).catch(() => undefined);
    if (claims && claims.client_id === client.client_id) await this.revokeFamily(claims.fam);
  }
}

export { InvalidClientError };
