import { AddressNotAllowedError, guardedFetch, type Resolver } from "@earshot/platform";
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { type OAuthClientInformationFull, OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { validateClientMetadata } from "./client-rules";
import { createFetchCache } from "./fetch-cache";

// Client ID Metadata Documents: a client_id that is an HTTPS URL names a JSON document describing the
// client. Fetching a URL a stranger chose is a server-side request forgery risk: the shared address
// policy (platform net/) resolves the host once, refuses any non-public address (IPv4-mapped and other
// IPv6 forms of private addresses included) and connects to the checked address only, with no
// redirects, a short timeout and a size cap. Documents obey the same rules as registrations and are
// cached for an hour.

const CACHE_MS = 3600_000;
const CACHE_ENTRIES = 500;
const MAX_BYTES = 64 * 1024;

export class ClientMetadataError extends Error {}

export const isClientIdUrl = (clientId: string): boolean => clientId.startsWith("https://");

export interface ClientMetadataFetcher {
  fetch(clientId: string): Promise<OAuthClientInformationFull>;
}

export interface ClientMetadataFetcherOptions {
  /** Resolves hostnames (tests inject one); the system resolver by default. */
  resolve?: Resolver;
  /** Lets documents be fetched from private addresses: tests and closed networks only. */
  allowPrivateNetworks?: boolean;
  timeoutMs?: number;
}

export const createClientMetadataFetcher = (options: ClientMetadataFetcherOptions = {}): ClientMetadataFetcher => {
  const cache = createFetchCache<OAuthClientInformationFull>({ maxEntries: CACHE_ENTRIES, ttlMs: CACHE_MS });
  return {
    fetch: (clientId) => cache.get(clientId, () => fetchDocument(clientId, options)),
  };
};

const fetchDocument = async (clientId: string, options: ClientMetadataFetcherOptions): Promise<OAuthClientInformationFull> => {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new ClientMetadataError("client_id is not a URL");
  }
  if (url.protocol !== "https:" || url.username || url.password || url.hash || url.pathname === "/") {
    throw new ClientMetadataError("client_id must be an https URL with a path and no credentials or fragment");
  }
  let res: Awaited<ReturnType<typeof guardedFetch>>;
  try {
    res = await guardedFetch(url, {
      ...(options.resolve ? { resolve: options.resolve } : {}),
      ...(options.allowPrivateNetworks ? { allowPrivateNetworks: true } : {}),
      timeoutMs: options.timeoutMs ?? 5000,
      maxBytes: MAX_BYTES,
      headers: { accept: "application/json" },
    });
  } catch (err) {
    if (err instanceof AddressNotAllowedError) throw new ClientMetadataError(`client_id resolves to a non-public address (${err.reason})`);
    throw new ClientMetadataError(`client metadata document could not be fetched: ${(err as Error).message}`);
  }
  if (res.status !== 200) throw new ClientMetadataError(`client metadata document answered ${res.status}`);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(res.text) as Record<string, unknown>;
  } catch {
    throw new ClientMetadataError("client metadata document is not JSON");
  }
  if (doc === null || typeof doc !== "object" || doc.client_id !== clientId) throw new ClientMetadataError("client metadata document names another client_id");
  try {
    validateClientMetadata(doc);
  } catch (err) {
    if (err instanceof OAuthError) throw new ClientMetadataError(`client metadata document: ${err.message}`);
    throw err;
  }
  const parsed = OAuthClientMetadataSchema.safeParse(doc);
  if (!parsed.success) throw new ClientMetadataError("client metadata document is not valid client metadata");
  return { ...parsed.data, client_id: clientId, token_endpoint_auth_method: "none" } as OAuthClientInformationFull;
};
