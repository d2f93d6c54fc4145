import { accountV1 } from "@earshot/proto";
import type { Backends } from "../backends";
import { providerWithGrant } from "./test-support";
import { oauthTokenVerifier } from "./token-verifier";

// A 401 tells a client to throw its token away, so only a token that fails verification gets one; a
// store that cannot answer is the service's trouble (503) and not counted against the client's address.

const activeAccount = {
  account: {
    getUser: async () => ({ user: { id: "usr_1", workspaceId: "wsp_1", email: "a@example.com", status: accountV1.UserStatus.USER_STATUS_ACTIVE }, workspace: { allowances: {} } }),
  },
} as unknown as Backends;

const issued = async () => {
  const grant = await providerWithGrant(async () => true);
  const tokens = await grant.provider.exchangeRefreshToken({ client_id: "oac_1", redirect_uris: [] } as never, grant.refresh);
  return { ...grant, accessToken: tokens.access_token, verifier: oauthTokenVerifier(grant.provider, activeAccount) };
};

describe("OAuth access token verification", () => {
  it("accepts a live token and answers unauthorized for a tampered or revoked one", async () => {
    const { accessToken, verifier, provider } = await issued();
    expect(await verifier.verify(accessToken)).toMatchObject({ userId: "usr_1", credentialId: "fam_1" });
    const [head, body, sig] = accessToken.split(".") as [string, string, string];
    await expect(verifier.verify(`${head}.${body}.${sig.slice(0, -4)}AAAA`)).rejects.toMatchObject({ code: "unauthorized" });
    await provider.revokeFamily("fam_1");
    await expect(verifier.verify(accessToken)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("answers unavailable, not unauthorized, when the grant store cannot be read", async () => {
    const { accessToken, verifier, collections } = await issued();
    collections.families.findById = async () => {
      throw new Error("store unreachable");
    };
    await expect(verifier.verify(accessToken)).rejects.toMatchObject({ code: "unavailable" });
  });
});
