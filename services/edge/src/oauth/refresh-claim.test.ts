import { InvalidScopeError, InvalidTargetError, ServerError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { client, ORIGIN, providerWithGrant as setUp } from "./test-support";

// A refresh token is spent only by a refresh that can succeed: a request the client got wrong, or an
// account service that could not answer, leaves it usable, and a retry is not mistaken for a reuse.

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
