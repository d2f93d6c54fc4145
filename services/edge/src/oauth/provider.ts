import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ALL_SCOPES } from "@earshot/account/scopes";
import { type Clock, newId } from "@earshot/platform";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import { InvalidClientError, InvalidGrantError, InvalidRequestError, InvalidScopeError, InvalidTargetError, OAuthError, ServerError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Response } from "express";
import jwt from "jsonwebtoken";
import { type ClientMetadataFetcher, isClientIdUrl } from "./client-metadata";
import { validateClientMetadata } from "./client-rules";
import type { FamilyDoc, OAuthCollections } from "./oauth-store";
import type { PublicOrigins } from "./public-origins";
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

/** RFC 9068: the JOSE `typ` of JWT access tokens, so no other JWT of ours can pass for one. */
export const ACCESS_TOKEN_TYP = "at+jwt";
/** Paths of the resources tokens are issued for, under each of Earshot's origins. */
export const RESOURCE_PATHS = ["/mcp", "/api/v1"];

export interface AccessTokenClaims {
  sub: string;
  aud: string;
  scope: string;
  client_id: string;
  fam: string;
  jti: string;
  iss: string;
  iat: number;
  exp: number;
}

const REQUIRED_STRING_CLAIMS = ["sub", "aud", "scope", "client_id", "fam", "jti"] as const;
const REQUIRED_TIME_CLAIMS = ["iat", "exp"] as const;

export interface ProviderOptions {
  collections: OAuthCollections;
  keys: SigningKeys;
  clock: Clock;
  /** Earshot's origins: each request's issuer is the origin it reached; tokens name `{origin}/mcp` or `{origin}/api/v1`. */
  origins: PublicOrigins;
  metadataFetcher: ClientMetadataFetcher;
  /** Whether the account still exists and is active: no tokens are issued for any other. */
  isUserActive: (userId: string) => Promise<boolean>;
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
        validateClientMetadata(client);
        const info = { ...client, client_id: `oac_${randomUUID()}`, client_id_issued_at: Math.floor(clock.now().getTime() / 1000) } as OAuthClientInformationFull;
        await collections.clients.insertOne({ _id: info.client_id, info, createdAt: clock.now() });
        return info;
      },
    };
  }

  private now(): Date {
    return this.o.clock.now();
  }

  private get defaultIssuer(): string {
    return this.o.origins.all[0] as string;
  }

  private resourceOf(resource: URL | undefined, issuer: string): string {
    // Without a resource indicator a token is for the MCP server, the resource this flow exists for.
    const value = (resource?.href ?? `${issuer}/mcp`).replace(/\/$/, "");
    const known = this.o.origins.all.flatMap((origin) => RESOURCE_PATHS.map((path) => `${origin}${path}`));
    if (!known.includes(value)) throw new InvalidTargetError(`Tokens are issued for ${RESOURCE_PATHS.map((p) => `${issuer}${p}`).join(" or ")} only.`);
    return value;
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const scopes = params.scopes?.length ? params.scopes : (client.scope?.split(" ") ?? ["mcp"]);
    const unknown = scopes.filter((s) => !ALL_SCOPES.includes(s));
    if (unknown.length > 0) throw new InvalidScopeError(`Unknown scopes: ${unknown.join(" ")}`);
    const issuer = this.o.origins.of(res.req);
    const resource = this.resourceOf(params.resource, issuer);
    const id = randomBytes(18).toString("base64url");
    await this.o.collections.requests.insertOne({
      _id: id,
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      scopes,
      ...(params.state !== undefined ? { state: params.state } : {}),
      resource,
      issuer,
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
      issuer: request.issuer ?? this.defaultIssuer,
      familyId: newId("fam"),
      expiresAt: new Date(this.now().getTime() + CODE_SECONDS * 1000),
    });
    return { redirect: this.redirectWith(request.redirectUri, request.issuer, { code, state: request.state }) };
  }

  /** Called by the consent page when the person declines. */
  async deny(requestId: string): Promise<{ redirect: string }> {
    const request = await this.o.collections.requests.findById(requestId);
    if (!request) throw new InvalidRequestError("The authorization request expired.");
    await this.o.collections.requests.deleteOne({ _id: requestId });
    return { redirect: this.redirectWith(request.redirectUri, request.issuer, { error: "access_denied", state: request.state }) };
  }

  /** RFC 9207: the issuer travels with the response so clients can detect mix-ups. */
  private redirectWith(redirectUri: string, issuer: string | undefined, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    url.searchParams.set("iss", issuer ?? this.defaultIssuer);
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
    const issuer = claimed.issuer ?? this.defaultIssuer;
    if (resource && this.resourceOf(resource, issuer) !== claimed.resource) throw new InvalidTargetError("resource does not match the authorization request.");
    if (!(await this.o.isUserActive(claimed.userId))) throw new InvalidGrantError("The account that approved this grant is no longer active.");
    const family: FamilyDoc = {
      _id: claimed.familyId,
      clientId: client.client_id,
      userId: claimed.userId,
      scopes: claimed.scopes,
      resource: claimed.resource,
      issuer,
      createdAt: now,
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_DAYS * 86400_000),
    };
    await this.o.collections.families.insertOne(family);
    return this.issueTokens(family);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    const now = this.now();
    const id = sha256(refreshToken);
    // Whose token it is is checked before it is claimed: another client presenting it (a leaked token
    // tried elsewhere) must neither consume it nor end the grant of the client it belongs to.
    const presented = await this.o.collections.refreshTokens.findById(id);
    if (!presented || presented.clientId !== client.client_id) throw new InvalidGrantError("The refresh token is invalid or was already used.");
    // A malformed request (another resource, wider scopes) is refused before the token is claimed, so
    // the client can correct it and retry with the same token.
    const family = await this.o.collections.families.findById(presented.familyId);
    if (family && resource && this.resourceOf(resource, family.issuer ?? this.defaultIssuer) !== family.resource) throw new InvalidTargetError("resource does not match the grant.");
    if (family && scopes?.length && scopes.some((s) => !family.scopes.includes(s))) throw new InvalidScopeError("A refresh cannot widen the granted scopes.");
    const claimed = await this.o.collections.refreshTokens.findOneAndUpdate(
      { _id: id, clientId: client.client_id, usedAt: { $exists: false } },
      { $set: { usedAt: now } },
    );
    if (!claimed) {
      // Presented again: a concurrent retry of its own client (within the window) just loses; later, the
      // token has leaked and the grant ends.
      const seen = await this.o.collections.refreshTokens.findById(id);
      if (seen?.usedAt && now.getTime() - seen.usedAt.getTime() > CONCURRENT_REFRESH_MS) await this.revokeFamily(seen.familyId);
      throw new InvalidGrantError("The refresh token is invalid or was already used.");
    }
    if (!family || family.revokedAt || claimed.expiresAt.getTime() <= now.getTime()) {
      throw new InvalidGrantError("The refresh token is invalid or was revoked.");
    }
    let active: boolean;
    try {
      active = await this.o.isUserActive(family.userId);
    } catch (err) {
      // The account service could not answer: that says nothing about the token, so the claim is undone
      // (a retry is not a reuse) and the client is told to try again.
      await this.o.collections.refreshTokens.updateOne({ _id: id, usedAt: now }, { $unset: { usedAt: "" } });
      if (err instanceof OAuthError) throw err;
      throw new ServerError("The account service is unavailable; retry the refresh.");
    }
    if (!active) {
      await this.revokeFamily(family._id);
      throw new InvalidGrantError("The account that approved this grant is no longer active.");
    }
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
      iss: family.issuer ?? this.defaultIssuer,
      iat: Math.floor(now.getTime() / 1000),
      exp: Math.floor(now.getTime() / 1000) + ACCESS_TOKEN_SECONDS,
    };
    const key = this.o.keys.current;
    const accessToken = jwt.sign(claims, key.privateKeyPem, { algorithm: "RS256", keyid: key.kid, header: { alg: "RS256", typ: ACCESS_TOKEN_TYP } });
    return { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refresh, scope: claims.scope };
  }

  async revokeFamily(familyId: string): Promise<void> {
    const family = await this.o.collections.families.findOneAndUpdate({ _id: familyId, revokedAt: { $exists: false } }, { $set: { revokedAt: this.now() } });
    if (family) this.o.onFamilyRevoked?.(family);
  }

  /**
   * Verifies an RFC 9068 access token: `typ`, signature, issuer (any of Earshot's origins), expiry, the
   * claims every token of ours carries, and that the family is live. The audience is the caller's to check.
   */
  async verifyClaims(token: string): Promise<AccessTokenClaims> {
    const decoded = jwt.decode(token, { complete: true });
    const header = decoded && typeof decoded === "object" ? decoded.header : undefined;
    if (!header || String(header.typ ?? "").toLowerCase().replace(/^application\//, "") !== ACCESS_TOKEN_TYP) throw new InvalidGrantError("Not an access token.");
    const publicKey = header.kid ? this.o.keys.publicKeyFor(header.kid) : undefined;
    if (!publicKey) throw new InvalidGrantError("Unknown signing key.");
    const claims = jwt.verify(token, publicKey, {
      algorithms: ["RS256"],
      issuer: [...this.o.origins.all] as [string, ...string[]],
      clockTimestamp: Math.floor(this.now().getTime() / 1000),
    }) as Partial<Record<string, unknown>>;
    const missing = [
      ...REQUIRED_STRING_CLAIMS.filter((c) => typeof claims[c] !== "string" || claims[c] === ""),
      ...REQUIRED_TIME_CLAIMS.filter((c) => typeof claims[c] !== "number" || !Number.isFinite(claims[c])),
    ];
    if (missing.length > 0) throw new InvalidGrantError(`The token lacks ${missing.join(", ")}.`);
    return this.checkFamily(claims as unknown as AccessTokenClaims);
  }

  private async checkFamily(claims: AccessTokenClaims): Promise<AccessTokenClaims> {
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
