import { INTEGRATION_EVENTS, MENTION_EVENTS } from "@earshot/contracts/events";
import { ManualClock } from "@earshot/platform";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { type Harness, startHarness } from "./harness";
import { ACME, ACME_LABS, authorizeAtLinkedin, authorizeLinkedin, connectedProject, connectUrlOf, GLOBEX, selectPage, syncLinkedin, visit } from "./linkedin-flow";
import { busEvents } from "./membership-events";
import { waitFor } from "../../../platform/src/testing/tmp";
import { buildWorld, createProject, listAllMentions, type World } from "./world";

// The LinkedIn connection over HTTP against a running all-in-one and the LinkedIn simulator: the owner's
// browser round trip, the Page choice, metered syncs whose posts become mentions, and the refusals. The
// poll interval is a day, so after a poller's first poll only syncs call LinkedIn; one clock drives the
// simulator and the services.

let sims: RunningSimulators;
let h: Harness;
let w: World;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  sims = await startSimulators({ platforms: ["linkedin"], generate: false, now: () => clock.now().getTime() });
  h = await startHarness({ ...sims.settings, EARSHOT_POLL_INTERVAL_SECONDS: "86400" }, clock);
  w = await buildWorld(h);
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await sims?.close();
});

it("connects a Page, collects its mentions on sync, and disconnects", async () => {
  const owner = await h.newActor();
  const projectId = await createProject(h, owner, "Zephyr & Co <launch>");
  await h.call("create_keyword", { projectId, value: "zephyr widgets", sources: ["linkedin"], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false }, owner.key);

  const connect = await h.call("get_linkedin_connect_url", { projectId }, owner.key);
  expect(connect.status).toBe(200);
  const { url, expiresAt } = connect.body.data as { url: string; expiresAt: string };
  expect(new URL(url).searchParams.get("redirect_uri")).toBe(`${h.url}/integrations/linkedin/callback`);
  expect(Date.parse(expiresAt) - clock.now().getTime()).toBe(600_000);

  const page = await visit(await authorizeAtLinkedin(url, "member-a"));
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
  // The project by its name (escaped), a form to choose the Page, and the API path for agents.
  expect(page.html).toContain("LinkedIn is connected for <strong>Zephyr &amp; Co &lt;launch&gt;</strong>");
  expect(page.html).toContain(`name="organizationUrn" value="${ACME}"`);
  expect(page.html).toContain(`name="organizationUrn" value="${ACME_LABS}"`);
  expect(page.html).toContain("select_linkedin_page");
  expect(page.html).toContain("PATCH /api/v1/integrations/linkedin");
  expect(page.html).toContain(projectId);

  const pending = await h.call("get_linkedin_integration", { projectId }, owner.key);
  expect(pending.body.data).toMatchObject({ status: "pending_page", page: null, pages: [{ organizationUrn: ACME }, { organizationUrn: ACME_LABS }], syncsPerDay: 20, syncsLeftToday: 20 });
  expect(JSON.stringify(pending.body)).not.toMatch(/AQV|accessToken/);

  const polled = sims.world.requests("linkedin").length;
  const selected = await selectPage(h, owner, projectId, ACME);
  expect(selected.body.data).toMatchObject({ status: "connected", page: { organizationUrn: ACME, name: "Acme Corp" } });
  // The new poller's first poll, then a post appears at LinkedIn a second later.
  await waitFor(() => sims.world.requests("linkedin").slice(polled).some((r) => r.path.endsWith("/organizationalEntityNotifications")), 10_000);
  clock.advance(1_000);
  sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme Corp makes the best zephyr widgets" });

  const stored = busEvents(h, MENTION_EVENTS, 1, (e) => e.type === "mention.created" && e.data.projectId === projectId);
  const synced = await syncLinkedin(h, owner, projectId);
  expect(synced.status).toBe(200);
  expect(synced.body.data).toMatchObject({ postsFound: 1, integration: { status: "connected", lastSyncAt: clock.now().toISOString(), syncsLeftToday: 19 } });
  await stored;
  const mentions = await listAllMentions(h, owner, projectId);
  expect(mentions).toEqual([expect.objectContaining({ source: "linkedin", text: "Acme Corp makes the best zephyr widgets" })]);
  const usage = await h.call("get_usage", {}, owner.key);
  expect(usage.body.data).toMatchObject({ limits: { linkedinSyncsPerDay: { allowance: 20, used: 1 } } });

  const gone = await h.call("disconnect_linkedin", { projectId }, owner.key);
  expect(gone.status).toBe(200);
  expect(gone.body.data).toMatchObject({ status: "disconnected", pages: [], page: null, tokenExpiresAt: null });
  expect((await h.call("disconnect_linkedin", { projectId }, owner.key)).body.data).toMatchObject({ status: "disconnected" });
  expect((await h.call("sync_linkedin", { projectId }, owner.key)).status).toBe(409);
});

describe("the callback page", () => {
  it("answers 400 pages for a missing, unknown, reused or malformed state, and for a member who cancelled", async () => {
    const back = new URL(await authorizeAtLinkedin(await connectUrlOf(h, w.owner, w.projectId)));
    const callback = `${h.url}/integrations/linkedin/callback`;
    const cases: Array<[string, RegExp]> = [
      [`${callback}?code=abc`, /state is missing/],
      [`${callback}?state=forged&code=abc`, /state is unknown/],
      [`${callback}?state=a&state=b&code=abc`, /state parameter is malformed/],
    ];
    for (const [url, message] of cases) {
      const page = await visit(url);
      expect({ url, status: page.status }).toEqual({ url, status: 400 });
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.html).toMatch(message);
    }
    expect((await visit(back.href)).status).toBe(200);
    const again = await visit(back.href);
    expect(again.status).toBe(400);
    expect(again.html).toMatch(/already used/);

    const cancelled = await visit(await authorizeAtLinkedin(await connectUrlOf(h, w.owner, w.projectId), "member-a", "cancel"));
    expect(cancelled.status).toBe(400);
    expect(cancelled.html).toMatch(/cancelled or declined/);
  });

  it("escapes what LinkedIn's redirect carries", async () => {
    const back = new URL(await authorizeAtLinkedin(await connectUrlOf(h, w.owner, w.projectId), "member-a", "cancel"));
    back.searchParams.set("error_description", "<script>alert(1)</script>");
    const page = await visit(back.href);
    expect(page.status).toBe(400);
    expect(page.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page.html).not.toContain("<script>");
  });

  it("refuses a state older than 10 minutes", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const back = await authorizeAtLinkedin(await connectUrlOf(h, owner, projectId));
    clock.advance(10 * 60_000 + 1);
    const page = await visit(back);
    expect(page.status).toBe(400);
    expect(page.html).toMatch(/expired/);
    expect((await h.call("get_linkedin_integration", { projectId }, owner.key)).body.data).toMatchObject({ status: "disconnected" });
  });

  it("completes another owner's state for their project only", async () => {
    const mine = await createProject(h, w.owner);
    const other = await h.newActor();
    const theirs = await createProject(h, other);
    const page = await authorizeLinkedin(h, other, theirs, "member-b");
    expect(page.html).toContain(theirs);
    expect(page.html).toContain(`value="${GLOBEX}"`);
    expect((await h.call("get_linkedin_integration", { projectId: mine }, w.owner.key)).body.data).toMatchObject({ status: "disconnected", pages: [] });
    expect((await selectPage(h, w.owner, theirs, GLOBEX)).status).toBe(404);
    expect((await h.call("get_linkedin_integration", { projectId: theirs }, w.owner.key)).status).toBe(404);
  });
});

describe("the callback page's Page form", () => {
  /** The callback page's form as a browser holds it: its hidden fields and the CSRF cookie. */
  const formOf = async (owner = w.owner) => {
    const projectId = await createProject(h, owner);
    const res = await fetch(await authorizeAtLinkedin(await connectUrlOf(h, owner, projectId)));
    const html = await res.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
    const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
    return { projectId, choice: field("choice"), csrf: field("csrf"), cookie };
  };
  const post = (form: { cookie: string }, fields: Record<string, string>) =>
    fetch(`${h.url}/integrations/linkedin/callback`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: form.cookie }, body: new URLSearchParams(fields) });

  it("chooses the Page once, with the token and this browser's CSRF cookie", async () => {
    const form = await formOf();
    expect(form.cookie).toMatch(/^earshot_csrf=/);
    const chosen = await post(form, { choice: form.choice, csrf: form.csrf, organizationUrn: ACME });
    expect(chosen.status).toBe(200);
    expect(await chosen.text()).toContain("LinkedIn Page chosen");
    expect((await h.call("get_linkedin_integration", { projectId: form.projectId }, w.owner.key)).body.data).toMatchObject({ status: "connected", page: { organizationUrn: ACME } });
    const again = await post(form, { choice: form.choice, csrf: form.csrf, organizationUrn: ACME_LABS });
    expect(again.status).toBe(400);
    expect(await again.text()).toMatch(/already used/);
  });

  it("refuses a post without the CSRF cookie's token (403) and leaves the choice open", async () => {
    const form = await formOf();
    for (const fields of [{ choice: form.choice, organizationUrn: ACME }, { choice: form.choice, csrf: "x".repeat(32), organizationUrn: ACME }]) {
      expect((await post(form, fields)).status).toBe(403);
    }
    expect((await post({ cookie: "" }, { choice: form.choice, csrf: form.csrf, organizationUrn: ACME })).status).toBe(403);
    expect((await post(form, { choice: form.choice, csrf: form.csrf, organizationUrn: ACME })).status).toBe(200);
  });

  it("answers a Page that is not the member's, or none, with 400 and keeps the token for a corrected choice", async () => {
    const form = await formOf();
    for (const organizationUrn of [GLOBEX, ""]) {
      const res = await post(form, { choice: form.choice, csrf: form.csrf, organizationUrn });
      expect({ organizationUrn, status: res.status }).toEqual({ organizationUrn, status: 400 });
      expect(await res.text()).toContain("organizationUrn");
    }
    expect((await post(form, { choice: form.choice, csrf: form.csrf, organizationUrn: ACME_LABS })).status).toBe(200);
  });

  it("refuses an unknown token, and the token once the project was archived", async () => {
    const form = await formOf();
    const forged = await post(form, { choice: "forged", csrf: form.csrf, organizationUrn: ACME });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toMatch(/pageChoiceToken is unknown/);
    expect((await h.call("archive_project", { projectId: form.projectId }, w.owner.key)).status).toBe(200);
    const archived = await post(form, { choice: form.choice, csrf: form.csrf, organizationUrn: ACME });
    expect(archived.status).toBe(400);
  });
});

it("answers 400 naming organizationUrn for a Page the member does not administer", async () => {
  const owner = await h.newActor();
  const projectId = await createProject(h, owner);
  await authorizeLinkedin(h, owner, projectId, "member-a");
  const res = await selectPage(h, owner, projectId, GLOBEX);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: "validation_failed", errors: [{ path: "organizationUrn" }] });
});

it("answers 402 usage_limited once the workspace ran its 20 syncs today", async () => {
  const owner = await h.newActor();
  const { projectId } = await connectedProject(h, owner);
  for (let i = 1; i < 20; i++) expect((await h.call("sync_linkedin", { projectId }, owner.key)).status).toBe(200);
  const over = await h.call("sync_linkedin", { projectId }, owner.key);
  expect(over.status).toBe(402);
  expect(over.body).toMatchObject({ code: "usage_limited", limit: "linkedin_syncs", allowance: 20 });
  expect((await h.call("get_usage", {}, owner.key)).body.data).toMatchObject({ limits: { linkedinSyncsPerDay: { used: 20 } } });
  expect((await h.call("get_linkedin_integration", { projectId }, owner.key)).body.data).toMatchObject({ syncsLeftToday: 0 });
});

it("answers LinkedIn's 429 with 429 rate_limited and its Retry-After, and does not count it", async () => {
  const owner = await h.newActor();
  const { projectId } = await connectedProject(h, owner);
  sims.world.fail("linkedin", { status: 429, retryAfterSeconds: 120 });
  const limited = await h.call("sync_linkedin", { projectId }, owner.key);
  expect(limited.status).toBe(429);
  expect(limited.body).toMatchObject({ code: "rate_limited" });
  expect(limited.headers.get("retry-after")).toBe("120");
  expect((await h.call("get_usage", {}, owner.key)).body.data).toMatchObject({ limits: { linkedinSyncsPerDay: { used: 1 } } });
});

it("disconnects when archive_project archives the project and when the owner deactivates their account", async () => {
  const owner = await h.newActor();
  const { projectId: archived } = await connectedProject(h, owner);
  const { projectId: owned } = await connectedProject(h, owner);
  const disconnected = busEvents(h, INTEGRATION_EVENTS, 2, (e) => e.type === "integration.linkedin.disconnected" && [archived, owned].includes(e.data.projectId));
  expect((await h.call("archive_project", { projectId: archived }, owner.key)).status).toBe(200);
  expect((await h.call("delete_account", { confirmation: "DELETE" }, owner.key)).status).toBe(200);
  const reasons = Object.fromEntries((await disconnected).map((e) => [e.data.projectId, "reason" in e.data ? e.data.reason : ""]));
  expect(reasons).toEqual({ [archived]: "project_archived", [owned]: "account_deactivated" });
});

it("is the owner's: members get 403, another workspace 404", async () => {
  for (const [op, input] of [
    ["get_linkedin_integration", { projectId: w.projectId }],
    ["get_linkedin_connect_url", { projectId: w.projectId }],
    ["select_linkedin_page", { projectId: w.projectId, organizationUrn: ACME }],
    ["sync_linkedin", { projectId: w.projectId }],
    ["disconnect_linkedin", { projectId: w.projectId }],
  ] as const) {
    expect({ op, status: (await h.call(op, input, w.editor.key)).status }).toEqual({ op, status: 403 });
    expect({ op, status: (await h.call(op, input, w.viewer.key)).status }).toEqual({ op, status: 403 });
    expect({ op, status: (await h.call(op, { ...input, projectId: w.strangerProjectId }, w.owner.key)).status }).toEqual({ op, status: 404 });
  }
});
