import { CustomOAuthError, InvalidClientMetadataError } from "@modelcontextprotocol/sdk/server/auth/errors.js";

// What a client may say about itself, whether it registers (RFC 7591) or publishes a client ID metadata
// document: redirect URIs per OAuth 2.1 and RFC 8252 (https; http only to a loopback host; a
// private-use scheme such as cursor: for native apps), absolute, without fragment or userinfo; a
// bounded number of them; and bounded lengths for every string, since all of it is stored and shown.

export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_BYTES = 2000;
export const MAX_CLIENT_NAME = 200;
/** Any other string member (scope, software_id, contacts, ...). */
export const MAX_STRING_BYTES = 2000;
/** Any other array member (grant_types, contacts, ...). */
export const MAX_ARRAY_ITEMS = 10;
/** The whole registration request. */
export const MAX_METADATA_BYTES = 32 * 1024;

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** Schemes that are not a native app's private-use scheme: they would hand the code to something else. */
const NOT_PRIVATE_USE = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:", "ftp:", "ws:", "wss:", "mailto:", "tel:", "sms:", "filesystem:"]);
const URI_MEMBERS = new Set(["client_uri", "logo_uri", "tos_uri", "policy_uri", "jwks_uri"]);

export const invalidRedirectUri = (message: string) => new CustomOAuthError("invalid_redirect_uri", message);

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

/** Why a redirect URI is refused, or undefined when it is acceptable. */
export const redirectUriProblem = (uri: unknown): string | undefined => {
  if (typeof uri !== "string") return "must be a string";
  if (bytes(uri) > MAX_URI_BYTES) return `must be at most ${MAX_URI_BYTES} bytes`;
  if (uri.includes("#")) return "must not contain a fragment";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "must be an absolute URI";
  }
  if (url.username || url.password) return "must not contain user information";
  if (url.protocol === "https:") return url.hostname ? undefined : "must name a host";
  if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname) ? undefined : "may use http only for localhost, 127.0.0.1 or [::1]";
  if (NOT_PRIVATE_USE.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  return undefined;
};

/** Throws the RFC 7591 error (invalid_redirect_uri or invalid_client_metadata) for metadata it refuses. */
export const validateClientMetadata = (metadata: unknown): void => {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw new InvalidClientMetadataError("Client metadata must be a JSON object.");
  const m = metadata as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) throw invalidRedirectUri("redirect_uris must list at least one redirect URI.");
  if (uris.length > MAX_REDIRECT_URIS) throw invalidRedirectUri(`redirect_uris may list at most ${MAX_REDIRECT_URIS} URIs.`);
  uris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidRedirectUri(`redirect_uris[${i}] ${problem}.`);
  });
  if (m.client_name !== undefined && (typeof m.client_name !== "string" || [...m.client_name].length > MAX_CLIENT_NAME)) {
    throw new InvalidClientMetadataError(`client_name must be a string of at most ${MAX_CLIENT_NAME} characters.`);
  }
  for (const [key, value] of Object.entries(m)) {
    if (key === "redirect_uris" || key === "client_name" || key === "jwks") continue;
    if (typeof value === "string") {
      if (bytes(value) > (URI_MEMBERS.has(key) ? MAX_URI_BYTES : MAX_STRING_BYTES)) throw new InvalidClientMetadataError(`${key} is too long.`);
      if (URI_MEMBERS.has(key) && !/^https?:\/\//i.test(value)) throw new InvalidClientMetadataError(`${key} must be an http(s) URL.`);
    } else if (Array.isArray(value)) {
      if (value.length > MAX_ARRAY_ITEMS) throw new InvalidClientMetadataError(`${key} may list at most ${MAX_ARRAY_ITEMS} items.`);
      if (value.some((v) => typeof v !== "string" || bytes(v) > MAX_STRING_BYTES)) throw new InvalidClientMetadataError(`${key} must list short strings.`);
    }
  }
};
