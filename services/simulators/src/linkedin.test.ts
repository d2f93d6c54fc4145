/* eslint-disable @typescript-eslint/no-explicit-any -- these tests walk the providers' raw JSON as it is on the wire */
import { startSimulators, type RunningSimulators } from "./index";
import { SIM_LINKEDIN_MEMBERS } from "./linkedin-members";
import { SIM_CREDENTIALS, SIM_PREFIXES } from "./settings";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const REDIRECT = "http://127.0.0.1:9/linkedin/callback";
const HEADERS = { "LinkedIn-Version": "202510", "X-Restli-Protocol-Version": "2.0.0" };

describe("LinkedIn simulator", () => {
  let sims: RunningSimulators;
  const auth = (path: string) => `${sims.origin}${SIM_PREFIXES.linkedinAuth}${path}`;
  const api = (path: string) => `${sims.origin}${SIM_PREFIXES.linkedinApi}${path}`;
  const authorizeQuery = (extra: Record<string, string> = {}) =>
    new URLSearchParams({ response_type: "code", client_id: SIM_CREDENTIALS.linkedinClientId, redirect_uri: REDIRECT, state: "st-1", scope: "r_organization_social rw_organization_admin", ...extra });
  const decide = (form: Record<string, string>) =>
    fetch(auth("/oauth/v2/authorization"), { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ ...Object.fromEntries(authorizeQuery()), ...form }) });
  const exchange = (code: string, extra: Record<string, string> = {}) =>
    fetch(auth("/oauth/v2/accessToken"), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: SIM_CREDENTIALS.linkedinClientId, client_secret: SIM_CREDENTIALS.linkedinClientSecret, ...extra }),
    });
  const tokenFor = async (member: string) => {
    const code = new URL((await decide({ action: "allow", member })).headers.get("location") ?? "").searchParams.get("code") ?? "";
    return ((await (await exchange(code)).json()) as { access_token: string }).access_token;
  };
  const call = async (path: string, token: string, headers: Record<string, string> = HEADERS) => {
    const res = await fetch(api(path), { headers: { authorization: `Bearer ${token}`, ...headers } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  const notificationsPath = (org: string, start: number, end: number) =>
    `/organizationalEntityNotifications?q=criteria&organizationalEntity=${encodeURIComponent(org)}&actions=List(SHARE_MENTION,COMMENT)&timeRange=(start:${start},end:${end})&count=50`;

  afterEach(() => sims?.close());

  it("shows a sign-in page with a form listing the members, and 400 for an unknown client or a missing parameter", async () => {
    sims = await startSimulators({ platforms: ["linkedin"], now: () => NOW });
    const res = await fetch(auth(`/oauth/v2/authorization?${authorizeQuery()}`));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain("Sign in to LinkedIn (simulated)");
    expect(html).toMatch(/<form method="post" action="\/linkedin\/www\/oauth\/v2\/authorization">/);
    for (const m of SIM_LINKEDIN_MEMBERS) expect(html).toContain(`value="${m.id}"`);
    expect(html).toContain('value="allow"');
    expect(html).toContain('value="cancel"');
    expect((await fetch(auth(`/oauth/v2/authorization?${authorizeQuery({ client_id: "nobody" })}`))).status).toBe(400);
    const missing = authorizeQuery();
    missing.delete("redirect_uri");
    const bad = await fetch(auth(`/oauth/v2/authorization?${missing}`));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("redirect_uri is required");
  });

  it("redirects with a code on Allow and with user_cancelled_authorize on Cancel, keeping the state", async () => {
    sims = await startSimulators({ platforms: ["linkedin"], now: () => NOW });
    const allow = new URL((await decide({ action: "allow", member: "member-a" })).headers.get("location") ?? "");
    expect(`${allow.origin}${allow.pathname}`).toBe(REDIRECT);
    expect(allow.searchParams.get("state")).toBe("st-1");
    expect(allow.searchParams.get("code")).toBeTruthy();
    const cancel = new URL((await decide({ action: "cancel" })).headers.get("location") ?? "");
    expect(cancel.searchParams.get("error")).toBe("user_cancelled_authorize");
    expect(cancel.searchParams.get("state")).toBe("st-1");
  });

  it("exchanges a code once, for the redirect URI it was issued to, and only for a known client", async () => {
    sims = await startSimulators({ platforms: ["linkedin"], now: () => NOW });
    const codeOf = async () => new URL((await decide({ action: "allow", member: "member-a" })).headers.get("location") ?? "").searchParams.get("code") ?? "";
    const code = await codeOf();
    const first = await exchange(code);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual(expect.objectContaining({ access_token: expect.any(String), expires_in: 5184000, refresh_token: expect.any(String), refresh_token_expires_in: expect.any(Number), scope: expect.any(String) }));
    const again = await exchange(code);
    expect(again.status).toBe(400);
    expect(((await again.json()) as any).error).toBe("invalid_grant");
    const other = await exchange(await codeOf(), { redirect_uri: "http://127.0.0.1:9/elsewhere" });
    expect(((await other.json()) as any).error).toBe("invalid_grant");
    const badClient = await exchange(await codeOf(), { client_secret: "wrong" });
    expect(badClient.status).toBe(401);
    expect(((await badClient.json()) as any).error).toBe("invalid_client");
  });

  it("expires a code not exchanged within 30 minutes", async () => {
    let now = NOW;
    sims = await startSimulators({ platforms: ["linkedin"], now: () => now });
    const code = new URL((await decide({ action: "allow", member: "member-b" })).headers.get("location") ?? "").searchParams.get("code") ?? "";
    now += 30 * 60_000 + 1;
    const late = await exchange(code);
    expect(late.status).toBe(400);
    expect(((await late.json()) as any).error).toBe("invalid_grant");
  });

  it("requires an issued token, LinkedIn-Version and the Rest.li header", async () => {
    sims = await startSimulators({ platforms: ["linkedin"], now: () => NOW });
    const unknown = await call("/organizationAcls?q=roleAssignee", "nope");
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(expect.objectContaining({ status: 401, serviceErrorCode: 65600, code: "INVALID_ACCESS_TOKEN" }));
    const token = await tokenFor("member-a");
    expect((await call("/organizationAcls?q=roleAssignee", token, { "X-Restli-Protocol-Version": "2.0.0" })).status).toBe(400);
    expect((await call("/organizationAcls?q=roleAssignee", token, { "LinkedIn-Version": "202510" })).status).toBe(400);
  });

  it("lists the Pages a member administers and their names", async () => {
    sims = await startSimulators({ platforms: ["linkedin"], now: () => NOW });
    const a = await call("/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED", await tokenFor("member-a"));
    expect(a.body.elements.map((e: any) => e.organization)).toEqual(["urn:li:organization:1001", "urn:li:organization:1002"]);
    expect(a.body.elements[0]).toEqual({ roleAssignee: "urn:li:person:SimAvery01", role: "ADMINISTRATOR", state: "APPROVED", organization: "urn:li:organization:1001" });
    expect(a.body.paging).toEqual(expect.objectContaining({ start: 0, total: 2 }));
    const b = await call("/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED", await tokenFor("member-b"));
    expect(b.body.elements.map((e: any) => e.organization)).toEqual(["urn:li:organization:2001"]);
    expect((await call("/organizations/1002", await tokenFor("member-b"))).body).toEqual(expect.objectContaining({ id: 1002, localizedName: "Acme Labs", vanityName: "acme-labs" }));
  });

  it("notifies mentions and comments of a Page naming it and the terms searched elsewhere; 403 for a Page not administered", async () => {
    sims = await startSimulators({ now: () => NOW, generateEveryMs: 60_000 });
    await fetch(`${sims.origin}${SIM_PREFIXES.youtubeApi}/search?part=snippet&q=${encodeURIComponent('"zephyr widgets"')}&key=${SIM_CREDENTIALS.youtubeApiKey}`);
    const token = await tokenFor("member-a");
    const list = await call(notificationsPath("urn:li:organization:1001", NOW - 3_600_000, NOW + 1), token);
    expect(list.status).toBe(200);
    const actions = new Set(list.body.elements.map((e: any) => e.action));
    expect(actions).toEqual(new Set(["SHARE_MENTION", "COMMENT"]));
    const mention = list.body.elements.find((e: any) => e.action === "SHARE_MENTION");
    const post = await call(`/posts/${encodeURIComponent(mention.sourcePost)}`, token);
    expect(post.body).toEqual(expect.objectContaining({ id: mention.sourcePost, lifecycleState: "PUBLISHED", visibility: "PUBLIC", author: expect.stringMatching(/^urn:li:person:/) }));
    expect(post.body.commentary).toContain("Acme Corp");
    expect(post.body.commentary.toLowerCase()).toContain("zephyr widgets");
    const comment = list.body.elements.find((e: any) => e.action === "COMMENT");
    const comments = await call(`/socialActions/${encodeURIComponent(comment.sourcePost)}/comments`, token);
    expect(comments.body.elements.some((c: any) => comment.generatedActivity.endsWith(`,${c.id})`) && c.message.text.includes("Acme Corp"))).toBe(true);
    const denied = await call(notificationsPath("urn:li:organization:2001", NOW - 3_600_000, NOW + 1), token);
    expect(denied.status).toBe(403);
  });

  it("lists published mentions and comments, refuses unencoded URNs, and answers 429 with LinkedIn's body and Retry-After", async () => {
    sims = await startSimulators({ platforms: ["linkedin"], generate: false, now: () => NOW });
    const share = sims.world.publish("linkedin", { organizationUrn: "urn:li:organization:2001", text: "Globex launches", createdAtMs: NOW - 10_000 });
    sims.world.publish("linkedin", { organizationUrn: "urn:li:organization:2001", kind: "comment", parentKey: share.key, text: "Congrats Globex", createdAtMs: NOW - 5_000 });
    const token = await tokenFor("member-b");
    const list = await call(notificationsPath("urn:li:organization:2001", NOW - 60_000, NOW + 1), token);
    expect(list.body.elements).toEqual([
      expect.objectContaining({ action: "COMMENT", sourcePost: `urn:li:share:${share.key}`, lastModifiedAt: NOW - 5_000 }),
      expect.objectContaining({ action: "SHARE_MENTION", sourcePost: `urn:li:share:${share.key}`, lastModifiedAt: NOW - 10_000 }),
    ]);
    expect((await call(`/posts/urn:li:share:${share.key}`, token)).status).toBe(400);
    sims.world.fail("linkedin", { status: 429, retryAfterSeconds: 120 });
    const limited = await call(notificationsPath("urn:li:organization:2001", NOW - 60_000, NOW + 1), token);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("120");
    expect(limited.body).toEqual({ status: 429, message: "Resource level throttle APPLICATION DAY limit for calls to this resource is reached." });
  });

  it("answers 403 ACCESS_DENIED for the one post a fault names, and the others as usual", async () => {
    sims = await startSimulators({ platforms: ["linkedin"], generate: false, now: () => NOW });
    const hidden = sims.world.publish("linkedin", { organizationUrn: "urn:li:organization:2001", text: "Globex, privately", createdAtMs: NOW - 10_000 });
    const open = sims.world.publish("linkedin", { organizationUrn: "urn:li:organization:2001", text: "Globex, publicly", createdAtMs: NOW - 5_000 });
    const token = await tokenFor("member-b");
    sims.world.fail("linkedin", { status: 403, matching: `/posts/urn:li:share:${hidden.key}` });
    expect((await call(`/posts/${encodeURIComponent(`urn:li:share:${open.key}`)}`, token)).status).toBe(200);
    const denied = await call(`/posts/${encodeURIComponent(`urn:li:share:${hidden.key}`)}`, token);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual(expect.objectContaining({ status: 403, code: "ACCESS_DENIED" }));
  });
});
