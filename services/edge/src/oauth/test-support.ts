import { createHash, createPublicKey } from "node:crypto";
import { ManualClock, openEmbeddedStore } from "@earshot/platform";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { openOAuthCollections } from "./oauth-store";
import { EarshotOAuthProvider } from "./provider";
import { publicOrigins } from "./public-origins";
import { generateSigningKey, type SigningKeys } from "./signing-keys";

// A provider on an embedded store holding one grant (family `fam_1` of user `usr_1`) and its refresh
// token, for tests of what the provider does with tokens.

export const ORIGIN = "https://earshot.example";
export const client = { client_id: "oac_1", redirect_uris: ["https://client.example/cb"] } as OAuthClientInformationFull;

export const providerWithGrant = async (isUserActive: () => Promise<boolean>) => {
  const clock = new ManualClock(new Date("2026-01-01T00:00:00.000Z"));
  const collections = await openOAuthCollections(await openEmbeddedStore());
  const key = generateSigningKey();
  const publicPem = createPublicKey(key.privateKeyPem).export({ type: "spki", format: "pem" }) as string;
  const keys: SigningKeys = { current: key, all: [key], jwks: { keys: [] }, publicKeyFor: (kid) => (kid === key.kid ? publicPem : undefined) };
  const provider = new EarshotOAuthProvider({
    collections,
    keys,
    clock,
    origins: publicOrigins({ publicUrl: ORIGIN, defaultOrigin: ORIGIN, port: 0 }),
    metadataFetcher: { fetch: async () => client },
    isUserActive,
  });
  const far = new Date("2027-01-01T00:00:00.000Z");
  await collections.families.insertOne({ _id: "fam_1", clientId: client.client_id, userId: "usr_1", scopes: ["mcp", "projects:read"], resource: `${ORIGIN}/mcp`, issuer: ORIGIN, createdAt: clock.now(), expiresAt: far });
  const refresh = "ert_first";
  await collections.refreshTokens.insertOne({ _id: createHash("sha256").update(refresh).digest("hex"), familyId: "fam_1", clientId: client.client_id, expiresAt: far });
  return { provider, clock, collections, refresh };
};

