import { createHash } from "node:crypto";
import { DomainError } from "@earshot/platform";
import type { Backends } from "../backends";
import type { Principal } from "./principal";

// Verifies bearer credentials. A verified API key is cached for at most `cacheMs` (1 s by default), so
// steady traffic costs one account-service call per key per second instead of one per request, while a
// revoked key or a deactivated account stops working within that second on every gateway replica.

export interface CredentialVerifier {
  verify(token: string): Promise<Principal>;
  /** Drops cached principals of a user at once on this replica (after revocation or deactivation). */
  forgetUser(userId: string): void;
}

export interface TokenVerifier {
  /** Whether this verifier handles the token's kind (by prefix or shape). */
  accepts(token: string): boolean;
  verify(token: string): Promise<Principal>;
}

export const invalidCredentials = () => new DomainError("unauthorized", "The credentials are missing, invalid, expired or revoked.");

export const apiKeyVerifier = (backends: Backends): TokenVerifier => ({
  accepts: (token) => token.startsWith("svc_sk_"),
  verify: async (token) => {
    const { principal } = await backends.account.verifyApiKey({ plaintext: token });
    if (!principal) throw invalidCredentials();
    return {
      userId: principal.userId,
      workspaceId: principal.workspaceId,
      email: principal.email,
      scopes: principal.scopes,
      credentialId: principal.credentialId,
      credentialType: "api_key",
      allowances: {
        projects: principal.allowances?.projects ?? 0,
        keywords: principal.allowances?.keywords ?? 0,
        seats: principal.allowances?.seats ?? 0,
        webhookDeliveriesPerDay: principal.allowances?.webhookDeliveriesPerDay ?? 0,
        linkedinSyncsPerDay: principal.allowances?.linkedinSyncsPerDay ?? 0,
      },
    };
  },
});

interface CacheEntry {
  principal: Principal;
  until: number;
}

export const createCredentialVerifier = (verifiers: TokenVerifier[], options: { cacheMs?: number; now?: () => number } = {}): CredentialVerifier => {
  const cacheMs = options.cacheMs ?? 1000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, CacheEntry>();
  const inflight = new Map<string, Promise<Principal>>();
  return {
    forgetUser: (userId) => {
      for (const [k, v] of cache) if (v.principal.userId === userId) cache.delete(k);
    },
    verify: async (token) => {
      // Keyed by a hash so plaintext credentials do not sit in memory longer than the request.
      const key = createHash("sha256").update(token).digest("base64url");
      const hit = cache.get(key);
      if (hit && hit.until > now()) return hit.principal;
      const pending = inflight.get(key);
      if (pending) return pending;
      const verifier = verifiers.find((v) => v.accepts(token));
      if (!verifier) throw invalidCredentials();
      const p = verifier
        .verify(token)
        .then((principal) => {
          if (cache.size > 10_000) cache.clear();
          cache.set(key, { principal, until: now() + cacheMs });
          return principal;
        })
        .catch((err: unknown) => {
          cache.delete(key);
          if (err instanceof DomainError && err.code === "unauthorized") throw invalidCredentials();
          throw err;
        })
        .finally(() => inflight.delete(key));
      inflight.set(key, p);
      return p;
    },
  };
};
