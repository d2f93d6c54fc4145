import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { type OAuthClientInformationFull, OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";

// Client ID Metadata Documents: a client_id that is an HTTPS URL names a JSON document describing the
// client. Fetching a URL a stranger chose is a server-side request forgery risk, so: https only, no
// credentials or fragments in the URL, every resolved address must be public, no redirects, a short
// timeout and a size cap. Documents are cached for an hour.

const CACHE_MS = 3600_000;
const MAX_BYTES = 64 * 1024;

const isPrivateAddress = (ip: string): boolean => {
  if (isIP(ip) === 6) {
    const v = ip.toLowerCase();
    if (v === "::1" || v === "::" || v.startsWith("fe80") || v.startsWith("fc") || v.startsWith("fd")) return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v);
    return mapped ? isPrivateAddress(mapped[1] as string) : false;
  }
  const [a, b] = ip.split(".").map(Number) as [number, number];
  return (
    a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224
  );
};

export class ClientMetadataError extends Error {}

export const isClientIdUrl = (clientId: string): boolean => clientId.startsWith("https://");

export interface ClientMetadataFetcher {
  fetch(clientId: string): Promise<OAuthClientInformationFull>;
}

export const createClientMetadataFetcher = (options: { resolve?: (host: string) => Promise<string[]> } = {}): ClientMetadataFetcher => {
  const cache = new Map<string, { info: OAuthClientInformationFull; until: number }>();
  const resolve = options.resolve ?? (async (host: string) => (await lookup(host, { all: true })).map((r) => r.address));
  return {
    fetch: async (clientId) => {
      const hit = cache.get(clientId);
      if (hit && hit.until > Date.now()) return hit.info;
      let url: URL;
      try {
        url = new URL(clientId);
      } catch {
        throw new ClientMetadataError("client_id is not a URL");
      }
      if (url.protocol !== "https:" || url.username || url.password || url.hash || url.pathname === "/") {
        throw new ClientMetadataError("client_id must be an https URL with a path and no credentials or fragment");
      }
      const addresses = await resolve(url.hostname.replace(/^\[|\]$/g, ""));
      if (addresses.length === 0 || addresses.some(isPrivateAddress)) throw new ClientMetadataError("client_id resolves to a non-public address");
      const res = await fetch(url, { redirect: "error", signal: AbortSignal.timeout(5000), headers: { Accept: "application/json" } });
      if (!res.ok) throw new ClientMetadataError(`client metadata document answered ${res.status}`);
      const text = await res.text();
      if (text.length > MAX_BYTES) throw new ClientMetadataError("client metadata document is too large");
      const doc = JSON.parse(text) as Record<string, unknown>;
      if (doc.client_id !== clientId) throw new ClientMetadataError("client metadata document names another client_id");
      const parsed = OAuthClientMetadataSchema.safeParse(doc);
      if (!parsed.success) throw new ClientMetadataError("client metadata document is not valid client metadata");
      const info = { ...parsed.data, client_id: clientId, token_endpoint_auth_method: "none" } as OAuthClientInformationFull;
      cache.set(clientId, { info, until: Date.now() + CACHE_MS });
      return info;
    },
  };
};

export { isPrivateAddress };
