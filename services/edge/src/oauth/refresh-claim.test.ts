import { createHash } from "node:crypto";
import { ManualClock, openEmbeddedStore } from "@earshot/platform";
import { InvalidScopeError, InvalidTargetError, ServerError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { openOAuthCollections } from "./oauth-store";
import { EarshotOAuthProvider } from "./provider";
import { publicOrigins } from "./public-origins";
import { generateSigningKey, type SigningKeys } from "./signing-keys";

// A refresh token is spent only by a refresh that can succeed: a request the client got wrong, or an
// account service that could not answer, leaves it usable, and a retry is not mistaken for a reuse.

const ORIGIN = "https://earshot.example";
const client = { client_id: "oac_1", redirect_uris: ["https://client.example/cb"] } as OAuthClientInformationFull;

const setUp = async (isUserActive: () => Promise<boolean>) => {
  const clock = new ManualClock(new Date("2026-01-01T00:00:00.000Z"));
  const collections = await openOAuthCollections(await openEmbeddedStore());
  const key = generateSigningKey();
  const keys: SigningKeys = { current: key, all: [key], jwks: { keys: [] }, publicKeyFor: () => undefined };
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

describe("refresh token claims", () => {
  it("keeps the token usable after a refresh naming another resource or wider scopes", async () => {
    const { provider, clock, refresh } = await setUp(async () => true);
    await expect(provider.exchangeRefreshToken(client, refresh, undefined, new URL(`${ORIGIN}/api/v1`))).rejects.toBeInstanceOf(InvalidTargetError);
    await expect(provider.exchangeRefreshToken(client, refresh, ["account:write"])).rejects.toBeInstanceOf(InvalidScopeError);
    clock.advance(10_000);
    const tokens = await provider.exchangeRefreshToken(client, refresh, undefined, new URL(`${ORIGIN}/mcp`));
    expect(tokens.refresh_token).toMatch(/^ert_/);
  });

  it("answers a server error without spending the token or ending the grant when the account check fails", async () => {
    let calls = 0;
    const { provider, clock, collections, refresh } = await setUp(async () => {
      calls += 1;
      if (calls === 1) throw new Error("14 UNAVAILABLE: account service unreachable");
      return true;
    });
    await expect(provider.exchangeRefreshToken(client, refresh)).rejects.toBeInstanceOf(ServerError);
    clock.advance(10_000);
    const tokens = await provider.exchangeRefreshToken(client, refresh);
    expect(tokens.refresh_token).toMatch(/^ert_/);
    expect((await collections.families.findById("fam_1"))?.revokedAt).toBeUndefined();
  });
});
