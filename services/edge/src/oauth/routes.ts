import { ALL_SCOPES } from "@earshot/account/scopes";
import type { Logger } from "@earshot/platform";
import { InvalidClientMetadataError, OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { authorizationHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/authorize.js";
import { clientRegistrationHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/register.js";
import { revocationHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/revoke.js";
import { tokenHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/token.js";
import cors from "cors";
import express, { type NextFunction, type Request, type Response, Router } from "express";
import type { Backends } from "../backends";
import type { Operation } from "../catalog/operation";
import { defaultMcpScopes } from "../mcp/scopes";
import { MAX_METADATA_BYTES, validateClientMetadata } from "./client-rules";
import type { OAuthCollections } from "./oauth-store";
import { oauthPages, type OAuthPagesOptions } from "./pages";
import type { EarshotOAuthProvider } from "./provider";
import type { PublicOrigins } from "./public-origins";
import type { SigningKeys } from "./signing-keys";

// The authorization server on the gateway's origin: metadata (RFC 8414, RFC 9728 for both resources),
// JWKS, and the SDK's endpoint handlers backed by our provider, plus the sign-in and consent pages.
// The issuer is the origin each request reached (see public-origins.ts).

export interface OAuthRoutesOptions {
  origins: PublicOrigins;
  /** The catalog: the MCP resource metadata advertises the scopes its tools need. */
  operations: readonly Operation[];
  provider: EarshotOAuthProvider;
  collections: OAuthCollections;
  keys: SigningKeys;
  backends: Backends;
  logger: Logger;
  now: () => Date;
  /** The signed-in people's sessions (the web app's) and how the sign-in page starts one. */
  sessions: OAuthPagesOptions["sessions"];
  signIn: OAuthPagesOptions["signIn"];
  /** Per-endpoint request limits of the SDK handlers; false turns them off (tests). */
  rateLimit: false | { windowMs: number; max: number };
}

const oauthErrorBody = (err: OAuthError) => err.toResponseObject();

/** Registration bodies are read here, bounded, so malformed or oversized JSON is an OAuth error, not a 500. */
const registrationBody = [
  cors(),
  express.json({ limit: MAX_METADATA_BYTES }),
  (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const e = err as { type?: string; status?: number };
    if (e.type === "entity.too.large") return void res.status(413).json(oauthErrorBody(new InvalidClientMetadataError(`The metadata exceeds ${MAX_METADATA_BYTES} bytes.`)));
    if (typeof e.status === "number" && e.status >= 400 && e.status < 500) return void res.status(400).json(oauthErrorBody(new InvalidClientMetadataError("The body is not valid JSON client metadata.")));
    next(err);
  },
  (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "POST") return next();
    try {
      validateClientMetadata(req.body);
    } catch (err) {
      if (err instanceof OAuthError) return void res.status(400).set("Cache-Control", "no-store").json(oauthErrorBody(err));
      throw err;
    }
    next();
  },
];

export const oauthRoutes = (o: OAuthRoutesOptions): Router => {
  const router = Router();
  // The client address comes from express's "trust proxy" (EARSHOT_TRUST_PROXY); a client's own
  // X-Forwarded-For is ignored on purpose, so the limiter's warning about it would only be noise.
  const rateLimit = o.rateLimit === false ? false : { ...o.rateLimit, validate: { xForwardedForHeader: false } };
  const mcpScopes = defaultMcpScopes(o.operations);
  const metadata = (issuer: string) => {
    const endpoint = (path: string) => `${issuer}${path}`;
    return {
      issuer,
      authorization_endpoint: endpoint("/oauth/authorize"),
      token_endpoint: endpoint("/oauth/token"),
      registration_endpoint: endpoint("/oauth/register"),
      revocation_endpoint: endpoint("/oauth/revoke"),
      jwks_uri: endpoint("/oauth/jwks"),
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      revocation_endpoint_auth_methods_supported: ["none", "client_secret_post"],
      scopes_supported: [...ALL_SCOPES],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    };
  };
  const resourceMetadata = (issuer: string, path: string, name: string, scopes: readonly string[]) => ({
    resource: `${issuer}${path}`,
    authorization_servers: [issuer],
    scopes_supported: [...scopes],
    bearer_methods_supported: ["header"],
    resource_name: name,
    resource_documentation: `${issuer}/docs`,
  });
  router.use("/.well-known", cors());
  router.get("/.well-known/oauth-authorization-server", (req, res) => void res.json(metadata(o.origins.of(req))));
  // What an MCP client asks for when it has no better idea: the tools' scopes, not the account-changing ones.
  router.get("/.well-known/oauth-protected-resource/mcp", (req, res) => void res.json(resourceMetadata(o.origins.of(req), "/mcp", "Earshot MCP server", mcpScopes)));
  router.get("/.well-known/oauth-protected-resource/api/v1", (req, res) =>
    void res.json(resourceMetadata(o.origins.of(req), "/api/v1", "Earshot REST API", ALL_SCOPES)),
  );
  router.get("/oauth/jwks", cors(), (_req, res) => void res.json(o.keys.jwks));
  router.use("/oauth/authorize", authorizationHandler({ provider: o.provider, rateLimit }));
  router.use("/oauth/token", tokenHandler({ provider: o.provider, rateLimit }));
  router.use("/oauth/register", ...registrationBody, clientRegistrationHandler({ clientsStore: o.provider.clientsStore, rateLimit }));
  router.use("/oauth/revoke", revocationHandler({ provider: o.provider, rateLimit }));
  router.use(oauthPages({ provider: o.provider, collections: o.collections, backends: o.backends, logger: o.logger, secureCookies: (o.origins.all[0] ?? "").startsWith("https:"), origins: o.origins, now: o.now, sessions: o.sessions, signIn: o.signIn }));
  return router;
};
