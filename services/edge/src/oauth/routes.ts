import { ALL_SCOPES, type Logger } from "@earshot/platform";
import { authorizationHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/authorize.js";
import { clientRegistrationHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/register.js";
import { revocationHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/revoke.js";
import { tokenHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/token.js";
import cors from "cors";
import { Router } from "express";
import type { Backends } from "../backends";
import type { OAuthCollections } from "./oauth-store";
import { oauthPages } from "./pages";
import type { EarshotOAuthProvider } from "./provider";
import type { SigningKeys } from "./signing-keys";

// The authorization server on the gateway's origin: metadata (RFC 8414, RFC 9728 for both resources),
// JWKS, and the SDK's endpoint handlers backed by our provider, plus the sign-in and consent pages.

export interface OAuthRoutesOptions {
  issuer: string;
  provider: EarshotOAuthProvider;
  collections: OAuthCollections;
  keys: SigningKeys;
  backends: Backends;
  logger: Logger;
  now: () => Date;
  /** Per-endpoint request limits of the SDK handlers; false turns them off (tests). */
  rateLimit: false | { windowMs: number; max: number };
}

export const oauthRoutes = (o: OAuthRoutesOptions): Router => {
  const router = Router();
  const endpoint = (path: string) => `${o.issuer}${path}`;
  const rateLimit = o.rateLimit === false ? false : o.rateLimit;
  const metadata = {
    issuer: o.issuer,
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
  const resourceMetadata = (path: string, name: string) => ({
    resource: endpoint(path),
    authorization_servers: [o.issuer],
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: name,
    resource_documentation: endpoint("/docs"),
  });
  router.use("/.well-known", cors());
  router.get("/.well-known/oauth-authorization-server", (_req, res) => void res.json(metadata));
  router.get("/.well-known/oauth-protected-resource/mcp", (_req, res) => void res.json(resourceMetadata("/mcp", "Earshot MCP server")));
  router.get("/.well-known/oauth-protected-resource/api/v1", (_req, res) => void res.json(resourceMetadata("/api/v1", "Earshot REST API")));
  router.get("/oauth/jwks", cors(), (_req, res) => void res.json(o.keys.jwks));
  router.use("/oauth/authorize", authorizationHandler({ provider: o.provider, rateLimit }));
  router.use("/oauth/token", tokenHandler({ provider: o.provider, rateLimit }));
  router.use("/oauth/register", clientRegistrationHandler({ clientsStore: o.provider.clientsStore, rateLimit }));
  router.use("/oauth/revoke", revocationHandler({ provider: o.provider, rateLimit }));
  router.use(oauthPages({ provider: o.provider, collections: o.collections, backends: o.backends, logger: o.logger, secureCookies: o.issuer.startsWith("https:"), now: o.now }));
  return router;
};
