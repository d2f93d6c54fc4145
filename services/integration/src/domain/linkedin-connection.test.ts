import { INTEGRATION_TOPIC } from "../events";
import { openIntegrationWorld, type IntegrationWorld, refusalOf } from "../test-support";
import { completeLinkedinAuthorization } from "./linkedin-callback";
import { getLinkedinConnectUrl, stateIdOf } from "./linkedin-connect";
import { disconnectLinkedin } from "./linkedin-disconnect";
import { getLinkedinIntegration } from "./linkedin-get";
import { chooseLinkedinPageByToken } from "./linkedin-page-choice";
import { selectLinkedinPage } from "./linkedin-select";

// The LinkedIn connection against the LinkedIn simulator over HTTP: the authorization page is driven as
// a browser would (GET the page, POST its form, read the redirect), the callback gets what LinkedIn sent.

const REDIRECT = "http://127.0.0.1:9/integrations/linkedin/callback";
const ACME = "urn:li:organization:1001";
const ACME_LABS = "urn:li:organization:1002";
const GLOBEX = "urn:li:organization:2001";

let w: IntegrationWorld;
beforeEach(async () => {
  w = await openIntegrationWorld({ platforms: ["linkedin"] });
});
afterEach(() => w.close());

/** The member signs in at LinkedIn's page and allows (or cancels): what LinkedIn sends back. */
const authorize = async (url: string, member = "member-a", action = "allow") => {
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const target = new URL(url);
  const form = new URLSearchParams(target.searchParams);
  form.set("member", member);
  form.set("action", action);
  const decided = await fetch(`${target.origin}${target.pathname}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
  expect(decided.status).toBe(302);
  const back = new URL(decided.headers.get("location") ?? "");
  const param = (name: string) => back.searchParams.get(name) ?? "";
  return { state: param("state"), code: param("code"), error: param("error"), errorDescription: param("error_description") };
};

const owner = (projectId: string) => w.caller({ [projectId]: "owner" });

const connectUrl = async (projectId: string) => (await getLinkedinConnectUrl(w.deps, owner(projectId), { projectId, redirectUri: REDIRECT })).url;

const eventTypes = async () => (await w.events()).map((e) => e.type).filter((t) => t.startsWith("integration.linkedin."));

describe("connect URL", () => {
  it("points at LinkedIn's authorization page with a 256-bit state stored only as its hash, expiring in 10 minutes", async () => {
    const projectId = await w.newProject();
    const { url, expiresAt } = await getLinkedinConnectUrl(w.deps, owner(projectId), { projectId, redirectUri: REDIRECT });
    const parsed = new URL(url);
    expect(parsed.pathname).toMatch(/\/oauth\/v2\/authorization$/);
    expect(parsed.searchParams.get("redirect_uri")).toBe(REDIRECT);
    const state = parsed.searchParams.get("state") ?? "";
    expect(Buffer.from(state, "base64url")).toHaveLength(32);
    expect(expiresAt.getTime() - w.clock.now().getTime()).toBe(10 * 60_000);
    const stored = await w.deps.collections.linkedinStates.find({});
    expect(stored).toEqual([expect.objectContaining({ _id: stateIdOf(state), projectId, userId: "usr_1", workspaceId: "wsp_1", redirectUri: REDIRECT })]);
    expect(JSON.stringify(stored)).not.toContain(state);
  });

  it("is the owner's: an editor is refused 403, a non-member 404, a bad redirect URI 400", async () => {
    const projectId = await w.newProject();
    await expect(getLinkedinConnectUrl(w.deps, w.caller({ [projectId]: "editor" }, { userId: "usr_2" }), { projectId, redirectUri: REDIRECT })).rejects.toMatchObject({ code: "forbidden" });
    await expect(getLinkedinConnectUrl(w.deps, w.caller({}, { userId: "usr_3" }), { projectId, redirectUri: REDIRECT })).rejects.toMatchObject({ code: "not_found" });
    const bad = await refusalOf(getLinkedinConnectUrl(w.deps, owner(projectId), { projectId, redirectUri: "javascript:alert(1)" }));
    expect(bad.errors).toEqual([expect.objectContaining({ path: "redirectUri" })]);
  });
});

describe("callback", () => {
  it("stores the tokens sealed with the member's Pages, pending a Page choice", async () => {
    const projectId = await w.newProject();
    const done = await completeLinkedinAuthorization(w.deps, await authorize(await connectUrl(projectId)));
    expect(done.projectId).toBe(projectId);
    expect(done.integration).toMatchObject({ status: "pending_page", pages: [{ organizationUrn: ACME, name: "Acme Corp" }, { organizationUrn: ACME_LABS, name: "Acme Labs" }] });
    const stored = await w.deps.collections.linkedin.findById(projectId);
    expect(stored?.accessToken).toMatch(/^v1\./);
    expect(w.deps.sealer.open(stored!.accessToken!)).toMatch(/^AQV/);
    expect(stored?.tokenExpiresAt?.getTime()).toBe(w.clock.now().getTime() + 5_184_000_000);
    expect(await getLinkedinIntegration(w.deps, owner(projectId), projectId)).toMatchObject({ status: "pending_page", syncsPerDay: 20, syncsLeftToday: 20 });
  });

  it("refuses a state used twice, an unknown state and a missing one with 400 naming state", async () => {
    const projectId = await w.newProject();
    const sent = await authorize(await connectUrl(projectId));
    await completeLinkedinAuthorization(w.deps, sent);
    for (const [input, message] of [
      [sent, /already used/],
      [{ ...sent, state: "not-a-state-we-issued" }, /unknown/],
      [{ ...sent, state: "" }, /missing/],
    ] as const) {
      const refusal = await refusalOf(completeLinkedinAuthorization(w.deps, input));
      expect(refusal).toMatchObject({ code: "validation_failed", errors: [{ path: "state", message: expect.stringMatching(message) }] });
    }
  });

  it("refuses a state older than 10 minutes", async () => {
    const projectId = await w.newProject();
    const sent = await authorize(await connectUrl(projectId));
    w.clock.advance(10 * 60_000 + 1);
    const refusal = await refusalOf(completeLinkedinAuthorization(w.deps, sent));
    expect(refusal.errors).toEqual([{ path: "state", message: expect.stringMatching(/expired/) }]);
    expect((await w.deps.collections.linkedin.findById(projectId))?.status ?? "disconnected").toBe("disconnected");
  });

  it("answers 400 saying the member cancelled when LinkedIn sends an error, and the state is spent", async () => {
    const projectId = await w.newProject();
    const sent = await authorize(await connectUrl(projectId), "member-a", "cancel");
    expect(sent.error).toBe("user_cancelled_authorize");
    const refusal = await refusalOf(completeLinkedinAuthorization(w.deps, sent));
    expect(refusal.errors).toEqual([{ path: "error", message: expect.stringMatching(/cancelled/) }]);
    expect((await refusalOf(completeLinkedinAuthorization(w.deps, { ...sent, error: "", code: "x" }))).errors[0]?.message).toMatch(/already used/);
  });

  it("refuses a state issued to someone who no longer owns the project, and one of an archived project", async () => {
    // The edge's view of memberships said usr_9 owned it; the project service's events say usr_1 does.
    const projectId = await w.newProject();
    const stale = await getLinkedinConnectUrl(w.deps, w.caller({ [projectId]: "owner" }, { userId: "usr_9" }), { projectId, redirectUri: REDIRECT });
    const refusal = await refusalOf(completeLinkedinAuthorization(w.deps, await authorize(stale.url)));
    expect(refusal.errors).toEqual([{ path: "state", message: expect.stringMatching(/no longer owns/) }]);

    const archived = await w.newProject();
    const sent = await authorize(await connectUrl(archived));
    await w.projectEvent("project.archived", { projectId: archived, workspaceId: "wsp_1" });
    expect((await refusalOf(completeLinkedinAuthorization(w.deps, sent))).errors[0]?.path).toBe("state");
    expect(await w.deps.collections.linkedin.findById(archived)).toBeNull();
  });

  it("binds each state to its own project: another owner's state connects only that owner's project", async () => {
    const mine = await w.newProject();
    const theirs = await w.newProject({ ownerId: "usr_2", workspaceId: "wsp_2" });
    const theirUrl = (await getLinkedinConnectUrl(w.deps, w.caller({ [theirs]: "owner" }, { userId: "usr_2", workspaceId: "wsp_2" }), { projectId: theirs, redirectUri: REDIRECT })).url;
    const done = await completeLinkedinAuthorization(w.deps, await authorize(theirUrl, "member-b"));
    expect(done.projectId).toBe(theirs);
    expect(await getLinkedinIntegration(w.deps, owner(mine), mine)).toMatchObject({ status: "disconnected", pages: [] });
    await expect(selectLinkedinPage(w.deps, owner(mine), { projectId: theirs, organizationUrn: GLOBEX })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("page selection", () => {
  it("connects one of the member's Pages once (event), and refuses a Page they do not administer naming organizationUrn", async () => {
    const projectId = await w.newProject();
    await completeLinkedinAuthorization(w.deps, await authorize(await connectUrl(projectId)));
    const refusal = await refusalOf(selectLinkedinPage(w.deps, owner(projectId), { projectId, organizationUrn: GLOBEX }));
    expect(refusal).toMatchObject({ code: "validation_failed", errors: [{ path: "organizationUrn", message: expect.stringContaining(ACME) }] });
    const view = await selectLinkedinPage(w.deps, owner(projectId), { projectId, organizationUrn: ACME_LABS });
    expect(view).toMatchObject({ status: "connected", page: { organizationUrn: ACME_LABS, name: "Acme Labs" } });
    await selectLinkedinPage(w.deps, owner(projectId), { projectId, organizationUrn: ACME_LABS });
    expect(await eventTypes()).toEqual(["integration.linkedin.connected"]);
    const [event] = (await w.events()).filter((e) => e.type === "integration.linkedin.connected");
    expect(event).toMatchObject({ topic: INTEGRATION_TOPIC, key: projectId, data: { projectId, workspaceId: "wsp_1", organizationUrn: ACME_LABS } });
  });

  it("answers 409 before any authorization", async () => {
    const projectId = await w.newProject();
    await expect(selectLinkedinPage(w.deps, owner(projectId), { projectId, organizationUrn: ACME })).rejects.toMatchObject({ code: "conflict" });
  });
});

describe("the callback page's Page choice", () => {
  it("gives the callback a 256-bit page-choice token stored only as its hash, expiring with the state, and none when the Page is kept", async () => {
    const projectId = await w.newProject();
    const url = await connectUrl(projectId);
    const done = await completeLinkedinAuthorization(w.deps, await authorize(url));
    expect(done.ownerId).toBe("usr_1");
    const token = done.pageChoice?.token ?? "";
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    const [state] = await w.deps.collections.linkedinStates.find({ _id: stateIdOf(new URL(url).searchParams.get("state") ?? "") });
    expect(state).toMatchObject({ pageChoiceId: stateIdOf(token) });
    expect(done.pageChoice?.expiresAt).toEqual(state!.expiresAt);
    expect(JSON.stringify(state)).not.toContain(token);

    await chooseLinkedinPageByToken(w.deps, { pageChoiceToken: token, organizationUrn: ACME });
    const again = await completeLinkedinAuthorization(w.deps, await authorize(await connectUrl(projectId)));
    expect(again.integration).toMatchObject({ status: "connected", page: { organizationUrn: ACME } });
    expect(again.pageChoice).toBeUndefined();
  });

  it("chooses once, like select_linkedin_page (event), and keeps the token through a choice that cannot succeed", async () => {
    const projectId = await w.newProject();
    const { pageChoice } = await completeLinkedinAuthorization(w.deps, await authorize(await connectUrl(projectId)));
    const token = pageChoice!.token;
    expect(await refusalOf(chooseLinkedinPageByToken(w.deps, { pageChoiceToken: token, organizationUrn: GLOBEX }))).toMatchObject({ errors: [{ path: "organizationUrn" }] });
    expect(await refusalOf(chooseLinkedinPageByToken(w.deps, { pageChoiceToken: token, organizationUrn: "" }))).toMatchObject({ errors: [{ path: "organizationUrn" }] });
    const chosen = await chooseLinkedinPageByToken(w.deps, { pageChoiceToken: token, organizationUrn: ACME_LABS });
    expect(chosen).toMatchObject({ projectId, ownerId: "usr_1", integration: { status: "connected", page: { organizationUrn: ACME_LABS } } });
    expect(await eventTypes()).toEqual(["integration.linkedin.connected"]);
    const reused = await refusalOf(chooseLinkedinPageByToken(w.deps, { pageChoiceToken: token, organizationUrn: ACME }));
    expect(reused).toMatchObject({ code: "validation_failed", errors: [{ path: "pageChoiceToken", message: expect.stringContaining("already used") }] });
    expect(await refusalOf(chooseLinkedinPageByToken(w.deps, { pageChoiceToken: "forged", organizationUrn: ACME }))).toMatchObject({ errors: [{ path: "pageChoiceToken", message: expect.stringContaining("unknown") }] });
  });

  it("refuses the token once the state expired, and once the project changed owner", async () => {
    const late = await w.newProject();
    const moved = await w.newProject();
    const a = await completeLinkedinAuthorization(w.deps, await authorize(await connectUrl(late)));
    const b = await completeLinkedinAuthorization(w.deps, await authorize(await connectUrl(moved)));
    await w.deps.collections.projects.updateOne({ _id: moved }, { $set: { ownerId: "usr_9" } });
    expect(await refusalOf(chooseLinkedinPageByToken(w.deps, { pageChoiceToken: b.pageChoice!.token, organizationUrn: ACME }))).toMatchObject({ errors: [{ path: "state", message: expect.stringContaining("no longer owns") }] });
    w.clock.advance(10 * 60_000);
    expect(await refusalOf(chooseLinkedinPageByToken(w.deps, { pageChoiceToken: a.pageChoice!.token, organizationUrn: ACME }))).toMatchObject({ errors: [{ path: "pageChoiceToken", message: expect.stringContaining("expired") }] });
    expect(await getLinkedinIntegration(w.deps, owner(late), late)).toMatchObject({ status: "pending_page" });
  });
});

describe("disconnection", () => {
  const connected = async () => {
    const projectId = await w.newProject();
    await completeLinkedinAuthorization(w.deps, await authorize(await connectUrl(projectId)));
    await selectLinkedinPage(w.deps, owner(projectId), { projectId, organizationUrn: ACME });
    return projectId;
  };

  it("drops tokens, Pages and Page with an event once; disconnecting again changes nothing", async () => {
    const projectId = await connected();
    const view = await disconnectLinkedin(w.deps, owner(projectId), projectId);
    expect(view).toMatchObject({ status: "disconnected", pages: [] });
    expect(view.page).toBeUndefined();
    const stored = await w.deps.collections.linkedin.findById(projectId);
    expect(stored).not.toHaveProperty("accessToken");
    expect(stored).not.toHaveProperty("refreshToken");
    expect(stored).not.toHaveProperty("page");
    await disconnectLinkedin(w.deps, owner(projectId), projectId);
    expect(await eventTypes()).toEqual(["integration.linkedin.connected", "integration.linkedin.disconnected"]);
    const last = (await w.events()).at(-1);
    expect(last?.data).toMatchObject({ projectId, organizationUrn: ACME, reason: "disconnected" });
  });

  it("follows the project's archival and the owner's deactivation, with the reason", async () => {
    const archived = await connected();
    await w.projectEvent("project.archived", { projectId: archived, workspaceId: "wsp_1" });
    const owned = await connected();
    const other = await w.newProject({ ownerId: "usr_2" });
    const pending = await connectUrl(owned);
    await w.accountEvent("user.deactivated", { userId: "usr_1", workspaceId: "wsp_1" });
    const reasons = (await w.events()).filter((e) => e.type === "integration.linkedin.disconnected").map((e) => [e.key, (e.data as { reason: string }).reason]);
    expect(reasons).toEqual([
      [archived, "project_archived"],
      [owned, "account_deactivated"],
    ]);
    expect((await w.deps.collections.linkedin.findById(owned))?.status).toBe("disconnected");
    expect(await w.deps.collections.linkedin.findById(other)).toBeNull();
    // An authorization the deactivated owner started cannot complete afterwards.
    expect((await refusalOf(completeLinkedinAuthorization(w.deps, await authorize(pending)))).errors[0]?.message).toMatch(/unknown/);
  });
});
