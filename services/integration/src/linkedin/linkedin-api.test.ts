import { type RunningSimulators, SIM_CREDENTIALS, SIM_LINKEDIN_MEMBERS, startSimulators } from "@earshot/simulators";
import { ProviderRateLimited, ProviderRejected } from "../collectors/provider-errors";
import { LinkedinApi } from "./linkedin-api";
import { allowOnAuthorizationPage, linkedinAccessToken, linkedinTestDeps, TEST_REDIRECT_URI } from "./linkedin-test-support";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const [MEMBER_A, MEMBER_B] = SIM_LINKEDIN_MEMBERS;

describe("LinkedIn API client against the simulator", () => {
  let sims: RunningSimulators;
  let api: LinkedinApi;

  beforeEach(async () => {
    sims = await startSimulators({ platforms: ["linkedin"], generate: false, now: () => NOW });
    api = new LinkedinApi(linkedinTestDeps(sims, () => NOW));
  });
  afterEach(() => sims.close());

  it("builds the authorization URL with the client, redirect URI, state and both scopes space-separated", () => {
    const url = new URL(api.authorizationUrl({ state: "s 1", redirectUri: TEST_REDIRECT_URI }));
    expect(`${url.origin}${url.pathname}`).toBe(`${sims.settings.EARSHOT_LINKEDIN_AUTH_URL}/oauth/v2/authorization`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ response_type: "code", client_id: SIM_CREDENTIALS.linkedinClientId, redirect_uri: TEST_REDIRECT_URI, state: "s 1", scope: "r_organization_social rw_organization_admin" });
    expect(url.search).toContain("scope=r_organization_social%20rw_organization_admin");
    expect(api.configured).toBe(true);
  });

  it("serves an authorization page whose form, allowed, gives a code that exchanges for tokens listing member A's two Pages", async () => {
    const page = await (await fetch(api.authorizationUrl({ state: "st", redirectUri: TEST_REDIRECT_URI }))).text();
    expect(page).toContain("<form");
    expect(page).toContain(`value="${MEMBER_A?.id}"`);
    const back = await allowOnAuthorizationPage(api.authorizationUrl({ state: "st", redirectUri: TEST_REDIRECT_URI }), MEMBER_A?.id ?? "");
    expect(back.get("state")).toBe("st");
    const tokens = await api.exchangeCode({ code: back.get("code") ?? "", redirectUri: TEST_REDIRECT_URI });
    expect(tokens).toEqual(expect.objectContaining({ accessToken: expect.any(String), expiresInSeconds: 5184000, refreshToken: expect.any(String) }));
    expect(await api.administeredPages(tokens.accessToken)).toEqual([
      { organizationUrn: "urn:li:organization:1001", name: "Acme Corp" },
      { organizationUrn: "urn:li:organization:1002", name: "Acme Labs" },
    ]);
    expect(await api.administeredPages(await linkedinAccessToken(api, MEMBER_B?.id ?? ""))).toEqual([{ organizationUrn: "urn:li:organization:2001", name: "Globex" }]);
  });

  it("rejects a code used twice as invalid_grant", async () => {
    const back = await allowOnAuthorizationPage(api.authorizationUrl({ state: "st", redirectUri: TEST_REDIRECT_URI }), MEMBER_A?.id ?? "");
    await api.exchangeCode({ code: back.get("code") ?? "", redirectUri: TEST_REDIRECT_URI });
    const err = await api.exchangeCode({ code: back.get("code") ?? "", redirectUri: TEST_REDIRECT_URI }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderRejected);
    expect((err as ProviderRejected).status).toBe(400);
    expect((err as ProviderRejected).body).toContain("invalid_grant");
  });

  it("refreshes an access token with the refresh token", async () => {
    const back = await allowOnAuthorizationPage(api.authorizationUrl({ state: "st", redirectUri: TEST_REDIRECT_URI }), MEMBER_B?.id ?? "");
    const tokens = await api.exchangeCode({ code: back.get("code") ?? "", redirectUri: TEST_REDIRECT_URI });
    const refreshed = await api.refreshTokens({ refreshToken: tokens.refreshToken ?? "" });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(await api.administeredPages(refreshed.accessToken)).toEqual([{ organizationUrn: "urn:li:organization:2001", name: "Globex" }]);
  });

  it("sends LinkedIn-Version and the Rest.li header on every API call", async () => {
    await api.administeredPages(await linkedinAccessToken(api, MEMBER_A?.id ?? ""));
    const calls = sims.world.requests("linkedin").filter((r) => r.path.startsWith("/organization"));
    expect(calls.length).toBe(3);
    for (const c of calls) expect(c.headers).toEqual(expect.objectContaining({ "linkedin-version": "202510", "x-restli-protocol-version": "2.0.0" }));
  });

  it("surfaces LinkedIn's 429 as ProviderRateLimited with its Retry-After", async () => {
    const token = await linkedinAccessToken(api, MEMBER_A?.id ?? "");
    sims.world.fail("linkedin", { status: 429, retryAfterSeconds: 300 });
    const err = await api.administeredPages(token).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderRateLimited);
    expect((err as ProviderRateLimited).retryAt.getTime()).toBe(NOW + 300_000);
  });
});
