import { ManualClock } from "@earshot/platform";
import { waitFor } from "@earshot/platform/testing";
import { createWebhook, UNREACHABLE_RECEIVER } from "./cases/webhooks";
import { type Harness, startHarness } from "./harness";
import { authorizationRequest, openOAuthSignIn } from "./oauth-client";
import { fieldOf, PASSWORD, WebClient } from "./web-client";
import { buildWorld, keywordWithMentions, type MentionData, type World } from "./world";

// The web app over HTTP: sessions (HttpOnly cookie, a new id at each sign-in, idle and absolute expiry on
// the harness's clock), CSRF and Origin checks on every post, a viewer's forged post, another workspace's
// ids, open redirects, and the sign-in throttle shared with the OAuth page. One all-in-one for the suite.

const clock = new ManualClock(new Date());
let h: Harness;
let w: World;
let mentions: MentionData[];
beforeAll(async () => {
  h = await startHarness({ EARSHOT_TRUST_PROXY: "loopback", EARSHOT_WEB_SESSION_IDLE_MINUTES: "30", EARSHOT_WEB_SESSION_MAX_HOURS: "8" }, clock);
  w = await buildWorld(h);
  mentions = (await keywordWithMentions(h, w.owner, w.projectId, 3)).mentions;
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const signedIn = async (email: string, headers: Record<string, string> = {}) => {
  const c = new WebClient(h, headers);
  const { res } = await c.signIn(email);
  expect(res.status).toBe(303);
  return c;
};

/** Posts the OAuth authorization server's sign-in form (a fresh authorization request) from `address`. */
const oauthSignIn = async (email: string, address: string): Promise<Response> => (await openOAuthSignIn(h, "web-test"))(email, PASSWORD, address);

const triageForm = (html: string, mentionId: string) => {
  const at = html.indexOf(`action="/app/projects/${w.projectId}/mentions/${mentionId}/triage"`);
  return at < 0 ? "" : html.slice(at, html.indexOf("</form>", at));
};

describe("sign-in and the session cookie", () => {
  test("a page without a session is a 303 to sign-in naming it; signing in returns there", async () => {
    const c = new WebClient(h);
    const inbox = `/app/projects/${w.projectId}?status=open`;
    const first = await c.get(inbox);
    expect(first.res.status).toBe(303);
    expect(first.res.headers.get("location")).toBe(`/app/sign-in?next=${encodeURIComponent(inbox)}`);
    const signIn = await c.signIn(w.owner.email, undefined, inbox);
    expect(signIn.res.status).toBe(303);
    expect(signIn.res.headers.get("location")).toBe(inbox);
    const cookie = signIn.res.headers.getSetCookie().find((s) => s.startsWith("earshot_app="))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\/;/);
    const page = await c.get(inbox);
    expect(page.res.status).toBe(200);
    expect(page.res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.html).toContain(mentions[0]!.id);
  });

  test("behind an https proxy the cookie is Secure", async () => {
    const c = new WebClient(h, { "X-Forwarded-Proto": "https" });
    const { res } = await c.signIn(w.owner.email);
    expect(res.headers.getSetCookie().find((s) => s.startsWith("earshot_app="))).toMatch(/; Secure/);
  });

  test("a wrong password is 401 with the form again; the message does not tell whether the account exists", async () => {
    const wrong = await new WebClient(h).signIn(w.owner.email, "not the password");
    const unknown = await new WebClient(h).signIn("nobody-here@example.com", "not the password");
    expect(wrong.res.status).toBe(401);
    expect(unknown.res.status).toBe(401);
    const message = (html: string) => /role="alert"[^>]*>([^<]*)</.exec(html)?.[1];
    expect(message(wrong.html)).toBe(message(unknown.html));
  });

  test("next is only ever a path under /app (no open redirect)", async () => {
    for (const next of ["https://evil.example/app", "//evil.example/app", "/\\evil.example", "/api/v1/projects", "/appx"]) {
      const { res } = await new WebClient(h).signIn(w.owner.email, undefined, next);
      expect(res.headers.get("location")).toBe("/app");
    }
  });

  test("session fixation: an id planted before sign-in is not the one after, and it is ended", async () => {
    const attacker = await signedIn(w.stranger.email);
    const planted = attacker.cookies.get("earshot_app")!;
    const victim = new WebClient(h);
    const { html } = await victim.get("/app/sign-in");
    victim.cookies.set("earshot_app", planted);
    const res = await victim.post("/app/sign-in", { csrf: fieldOf(html, "csrf"), next: "/app", email: w.owner.email, password: PASSWORD });
    expect(res.res.status).toBe(303);
    expect(victim.cookies.get("earshot_app")).not.toBe(planted);
    expect((await victim.get("/app")).html).toContain(w.projectId);
    expect((await attacker.get("/app")).res.status).toBe(303);
  });

  test("forged and malformed cookies are no session", async () => {
    for (const value of ["x".repeat(43), "not a session", ""]) {
      const c = new WebClient(h);
      c.cookies.set("earshot_app", value);
      expect((await c.get("/app")).res.status).toBe(303);
    }
  });

  test("idle expiry and absolute expiry, on the clock", async () => {
    const idle = await signedIn(w.owner.email);
    clock.advance(29 * 60_000);
    expect((await idle.get("/app")).res.status).toBe(200);
    clock.advance(29 * 60_000); // used a minute ago, so its idle period moved on
    expect((await idle.get("/app")).res.status).toBe(200);
    clock.advance(31 * 60_000);
    expect((await idle.get("/app")).res.status).toBe(303);

    const busy = await signedIn(w.owner.email);
    for (let i = 0; i < 17; i++) {
      clock.advance(28 * 60_000);
      expect((await busy.get("/app")).res.status).toBe(200);
    }
    clock.advance(28 * 60_000); // 8 h 24 min after sign-in: past the absolute end however busy
    expect((await busy.get("/app")).res.status).toBe(303);
  });

  test("one sign-in serves the web app and the OAuth consent page, either way round; sign-out ends both", async () => {
    const atApp = await signedIn(w.owner.email);
    const consent = await atApp.get(await authorizationRequest(h, "web-and-oauth"));
    expect(consent.res.status).toBe(200);
    expect(consent.html).toContain("Allow access?");
    expect(consent.html).toContain(w.owner.email);

    const atOAuth = new WebClient(h);
    const path = await authorizationRequest(h, "web-and-oauth");
    const form = await atOAuth.get(path);
    expect(form.html).toContain('action="/oauth/sign-in"');
    const signIn = await atOAuth.post("/oauth/sign-in", { csrf: fieldOf(form.html, "csrf"), request: fieldOf(form.html, "request"), email: w.owner.email, password: PASSWORD });
    expect(signIn.res.status).toBe(303);
    expect((await atOAuth.get("/app")).res.status).toBe(200);
    expect((await atOAuth.get(path)).html).toContain("Allow access?");
    const { html } = await atOAuth.get("/app");
    expect((await atOAuth.post("/app/sign-out", { csrf: fieldOf(html, "csrf") })).res.status).toBe(303);
    expect((await atOAuth.get(path)).html).toContain('action="/oauth/sign-in"');
  });

  test("sign-out ends the session on the server", async () => {
    const c = await signedIn(w.owner.email);
    const id = c.cookies.get("earshot_app")!;
    const { html } = await c.get("/app");
    const out = await c.post("/app/sign-out", { csrf: fieldOf(html, "csrf") });
    expect(out.res.status).toBe(303);
    const replay = new WebClient(h);
    replay.cookies.set("earshot_app", id);
    expect((await replay.get("/app")).res.status).toBe(303);
  });

  test("the sign-in throttle is the OAuth page's: guesses here count there", async () => {
    const from = { "X-Forwarded-For": "203.0.113.77" };
    expect((await oauthSignIn(w.editor.email, "198.51.100.77")).status).toBe(303);
    let last = 0;
    for (let i = 0; i < 12 && last !== 429; i++) last = (await new WebClient(h, from).signIn(w.editor.email, "wrong")).res.status;
    expect(last).toBe(429);
    // The right password from that address is refused too, here and on the OAuth sign-in page.
    const { res } = await new WebClient(h, from).signIn(w.editor.email);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await oauthSignIn(w.editor.email, from["X-Forwarded-For"])).status).toBe(429);
    clock.advance(2 * 3600_000);
  });
});

describe("forms: CSRF, origin, roles, tenancy", () => {
  test("an editor triages through the pipeline; the change is in the mention's history", async () => {
    const c = await signedIn(w.editor.email);
    const { html } = await c.get(`/app/projects/${w.projectId}`);
    const form = triageForm(html, mentions[0]!.id);
    const back = `/app/projects/${w.projectId}`;
    const res = await c.post(`/app/projects/${w.projectId}/mentions/${mentions[0]!.id}/triage`, { csrf: fieldOf(form, "csrf"), back, idem: fieldOf(form, "idem"), status: "done" });
    expect(res.res.status).toBe(303);
    expect(res.res.headers.get("location")).toBe(`${back}#${mentions[0]!.id}`);
    const got = await h.call("get_mention", { mentionId: mentions[0]!.id }, w.owner.key);
    expect((got.body.data as { status: string }).status).toBe("done");
    // The same form sent again (a double click) replays: one change in the history.
    await c.post(`/app/projects/${w.projectId}/mentions/${mentions[0]!.id}/triage`, { csrf: fieldOf(form, "csrf"), back, idem: fieldOf(form, "idem"), status: "done" });
    const history = (await h.call("get_mention", { mentionId: mentions[0]!.id }, w.owner.key)).body.data as { history: Array<{ field: string }> };
    expect(history.history.filter((x) => x.field === "status")).toHaveLength(1);
  });

  test("a post without the session's CSRF token, or from another origin, is 403 and changes nothing", async () => {
    const c = await signedIn(w.editor.email);
    const { html } = await c.get(`/app/projects/${w.projectId}`);
    const path = `/app/projects/${w.projectId}/mentions/${mentions[1]!.id}/triage`;
    expect((await c.post(path, { status: "follow_up" })).res.status).toBe(403);
    expect((await c.post(path, { csrf: "A".repeat(32), status: "follow_up" })).res.status).toBe(403);
    expect((await c.post(path, { csrf: fieldOf(html, "csrf"), status: "follow_up" }, { Origin: "https://evil.example" })).res.status).toBe(403);
    expect((await c.post(path, { csrf: fieldOf(html, "csrf"), status: "follow_up" }, { Origin: "null" })).res.status).toBe(403);
    const got = await h.call("get_mention", { mentionId: mentions[1]!.id }, w.owner.key);
    expect((got.body.data as { status: string }).status).toBe("open");
  });

  test("a bad value is a 400 page naming the field, never a 500", async () => {
    const c = await signedIn(w.editor.email);
    const { html } = await c.get(`/app/projects/${w.projectId}`);
    const path = `/app/projects/${w.projectId}/mentions/${mentions[1]!.id}/triage`;
    const bad = await c.post(path, { csrf: fieldOf(html, "csrf"), status: "archived" });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain("<code>status</code>");
    const filter = await c.get(`/app/projects/${w.projectId}?minRelevance=7`);
    expect(filter.res.status).toBe(400);
    expect(filter.html).toContain("<code>minRelevance</code>");
  });

  test("a viewer sees no triage forms, and a viewer's forged post is refused with 403", async () => {
    const c = await signedIn(w.viewer.email);
    const { res, html } = await c.get(`/app/projects/${w.projectId}`);
    expect(res.status).toBe(200);
    expect(html).toContain(mentions[2]!.id);
    expect(html).not.toContain("/triage");
    const forged = await c.post(`/app/projects/${w.projectId}/mentions/${mentions[2]!.id}/triage`, { csrf: fieldOf(html, "csrf"), status: "done" });
    expect(forged.res.status).toBe(403);
    const got = await h.call("get_mention", { mentionId: mentions[2]!.id }, w.owner.key);
    expect((got.body.data as { status: string }).status).toBe("open");
  });

  test("another workspace's project and mentions answer 404", async () => {
    const c = await signedIn(w.stranger.email);
    const { html } = await c.get("/app");
    expect(html).not.toContain(w.projectId);
    expect((await c.get(`/app/projects/${w.projectId}`)).res.status).toBe(404);
    expect((await c.get(`/app/projects/${w.projectId}/mentions/${mentions[0]!.id}`)).res.status).toBe(404);
    // Its own project's address with the other project's mention is no way in either.
    expect((await c.get(`/app/projects/${w.strangerProjectId}/mentions/${mentions[0]!.id}`)).res.status).toBe(404);
    const post = await c.post(`/app/projects/${w.strangerProjectId}/mentions/${mentions[0]!.id}/triage`, { csrf: fieldOf(html, "csrf"), status: "done" });
    expect(post.res.status).toBe(404);
  });

  test("the mention page shows provenance, relevance and history", async () => {
    const c = await signedIn(w.owner.email);
    const { res, html } = await c.get(`/app/projects/${w.projectId}/mentions/${mentions[0]!.id}`);
    expect(res.status).toBe(200);
    expect(html).toContain("Why it matched");
    expect(html).toContain("History");
    expect(html).toMatch(/status open → done/);
  });
});

describe("keywords and alerts pages", () => {
  const keywordsOf = async () => (await h.call("list_keywords", { projectId: w.projectId, limit: 100 }, w.owner.key)).body.data as Array<{ id: string; value: string; groupId: string; active: boolean }>;
  const groupsOf = async () => (await h.call("list_keyword_groups", { projectId: w.projectId, limit: 100 }, w.owner.key)).body.data as Array<{ id: string; name: string }>;

  test("an editor adds a keyword, moves it to another group and deactivates it; a bad phrase is a 400 beside the phrase field", async () => {
    const c = await signedIn(w.editor.email);
    const page = `/app/projects/${w.projectId}/keywords`;
    const { res, html } = await c.get(page);
    expect(res.status).toBe(200);
    const csrf = fieldOf(html, "csrf");
    const bad = await c.post(page, { csrf, back: page, value: "   " });
    expect(bad.res.status).toBe(400);
    // The message is beside the field that was wrong, which is marked and described by it.
    expect(bad.html).toMatch(/<input id="new-value" name="value" required value="   " aria-invalid="true" aria-describedby="new-value-error"><span class="field-error" id="new-value-error">[^<]+<\/span>/);
    expect((await c.post(page, { csrf, back: page, value: "Webapp Widget" })).res.status).toBe(303);
    const kw = (await keywordsOf()).find((k) => k.value === "Webapp Widget")!;
    const competitors = (await groupsOf()).find((g) => g.name === "Competitors")!;
    expect((await c.post(`${page}/${kw.id}`, { csrf, back: page, action: "move", groupId: competitors.id })).res.status).toBe(303);
    expect((await c.post(`${page}/${kw.id}`, { csrf, back: page, action: "deactivate" })).res.status).toBe(303);
    expect((await keywordsOf()).find((k) => k.id === kw.id)).toMatchObject({ groupId: competitors.id, active: false });
  });

  test("an editor edits a keyword's aliases and excluded terms, and adds, renames and deletes a group", async () => {
    const c = await signedIn(w.editor.email);
    const page = `/app/projects/${w.projectId}/keywords`;
    const { html } = await c.get(page);
    const csrf = fieldOf(html, "csrf");
    const kw = (await keywordsOf()).find((k) => k.active)!;
    const edited = await c.post(`${page}/${kw.id}`, { csrf, back: page, action: "edit", value: kw.value, aliases: " Widgetco, widget co ,", excludedTerms: "widget pie" });
    expect(edited.res.status).toBe(303);
    expect((await h.call("get_keyword", { keywordId: kw.id }, w.owner.key)).body.data).toMatchObject({ aliases: ["Widgetco", "widget co"], excludedTerms: ["widget pie"] });
    expect((await c.post(`${page}/groups`, { csrf, back: page, name: "Web partners" })).res.status).toBe(303);
    const group = (await groupsOf()).find((g) => g.name === "Web partners")!;
    expect((await c.post(`${page}/groups/${group.id}`, { csrf, back: page, action: "rename", name: "Web allies" })).res.status).toBe(303);
    expect((await groupsOf()).find((g) => g.id === group.id)?.name).toBe("Web allies");
    expect((await c.post(`${page}/groups/${group.id}`, { csrf, back: page, action: "delete" })).res.status).toBe(303);
    expect((await groupsOf()).find((g) => g.id === group.id)).toBeUndefined();
    // The fixed groups refuse, and the page says why (a 4xx, never a 500).
    const brand = (await groupsOf()).find((g) => g.name === "My brand")!;
    const refused = await c.post(`${page}/groups/${brand.id}`, { csrf, back: page, action: "delete" });
    expect(refused.res.status).toBeGreaterThanOrEqual(400);
    expect(refused.res.status).toBeLessThan(500);
    expect(refused.html).toContain('role="alert"');
    // A group of another project is 404 here.
    const foreign = ((await h.call("list_keyword_groups", { projectId: w.strangerProjectId }, w.stranger.key)).body.data as Array<{ id: string }>)[0]!;
    expect((await c.post(`${page}/groups/${foreign.id}`, { csrf, back: page, action: "rename", name: "Mine" })).res.status).toBe(404);
  });

  test("a viewer sees keywords and alerts without forms; a forged post is 403; a stranger gets 404", async () => {
    const viewer = await signedIn(w.viewer.email);
    const page = `/app/projects/${w.projectId}/keywords`;
    const { html } = await viewer.get(page);
    expect(html).not.toContain('name="action"');
    const kw = (await keywordsOf())[0]!;
    expect((await viewer.post(`${page}/${kw.id}`, { csrf: fieldOf(html, "csrf"), back: page, action: "deactivate" })).res.status).toBe(403);
    expect((await viewer.get(`/app/projects/${w.projectId}/alerts`)).html).not.toContain("Turn off");
    const stranger = await signedIn(w.stranger.email);
    const own = await stranger.get(`/app/projects/${w.strangerProjectId}/keywords`);
    expect((await stranger.get(page)).res.status).toBe(404);
    expect((await stranger.post(`/app/projects/${w.strangerProjectId}/keywords/${kw.id}`, { csrf: fieldOf(own.html, "csrf"), action: "deactivate" })).res.status).toBe(404);
  });

  test("an editor turns an alert off and sets its digest hour; hour 25 is a 400 beside the hour, the rest as typed", async () => {
    const c = await signedIn(w.editor.email);
    const page = `/app/projects/${w.projectId}/alerts`;
    const { html } = await c.get(page);
    const csrf = fieldOf(html, "csrf");
    const alert = ((await h.call("list_alerts", { projectId: w.projectId }, w.owner.key)).body.data as Array<{ id: string }>)[0]!;
    expect((await c.post(`${page}/${alert.id}`, { csrf, back: page, active: "false" })).res.status).toBe(303);
    const bad = await c.post(`${page}/${alert.id}`, { csrf, back: page, settings: "1", hour: "25", digest: "true", sources: "youtube" });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain(`value="25" aria-invalid="true" aria-describedby="hour-${alert.id}-error"`);
    expect(bad.html).toContain(`id="${alert.id}-sources-youtube" name="sources" value="youtube" checked`);
    const ok = await c.post(`${page}/${alert.id}`, { csrf, back: page, settings: "1", hour: "6", digest: "true", sources: "reddit" });
    expect(ok.res.status).toBe(303);
    const got = (await h.call("get_alert", { alertId: alert.id }, w.owner.key)).body.data;
    expect(got).toMatchObject({ active: false, digest: { enabled: true, hour: 6 }, filters: { sources: ["reddit"] } });
  });
});

describe("creating alerts and webhook endpoints from the pages", () => {
  test("an editor creates an alert; a missing name is a 400 beside the name with the rest kept; a double submit creates one", async () => {
    const c = await signedIn(w.editor.email);
    const page = `/app/projects/${w.projectId}/alerts`;
    const { html } = await c.get(page);
    const csrf = fieldOf(html, "csrf");
    const idem = fieldOf(html, "idem");
    const bad = await c.post(page, { csrf, back: page, idem, name: "", hour: "7", digest: "true", sentiments: "negative" });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('aria-describedby="new-alert-name-error"><span class="field-error" id="new-alert-name-error">');
    expect(bad.html).toContain('id="new-sentiments-negative" name="sentiments" value="negative" checked');
    const fields = { csrf, back: page, idem: fieldOf(bad.html, "idem"), name: "Complaints, daily", hour: "7", digest: "true", sentiments: "negative", minRelevance: "0.5" };
    const [first, second] = [await c.post(page, fields), await c.post(page, fields)];
    expect(first.res.status).toBe(303);
    expect(second.res.headers.get("location")).toBe(first.res.headers.get("location"));
    const made = ((await h.call("list_alerts", { projectId: w.projectId }, w.owner.key)).body.data as Array<{ id: string; name: string }>).filter((a) => a.name === "Complaints, daily");
    expect(made).toHaveLength(1);
    expect((await h.call("get_alert", { alertId: made[0]!.id }, w.owner.key)).body.data).toMatchObject({
      active: true,
      instant: false,
      digest: { enabled: true, hour: 7 },
      filters: { sentiments: ["negative"], sources: [], minRelevance: 0.5 },
    });
    // Its own page (the emails' "Change this alert") shows it alone.
    const own = await c.get(`${page}/${made[0]!.id}`);
    expect(own.res.status).toBe(200);
    expect(own.html).toContain("<h1>Complaints, daily · ");
    const viewer = await signedIn(w.viewer.email);
    const seen = await viewer.get(page);
    expect(seen.html).not.toContain("Create alert");
    expect((await viewer.post(page, { csrf: fieldOf(seen.html, "csrf"), back: page, name: "Sneaky" })).res.status).toBe(403);
    const stranger = await signedIn(w.stranger.email);
    expect((await stranger.get(`${page}/${made[0]!.id}`)).res.status).toBe(404);
  });

  test("an editor creates an endpoint and sees its secret once; an http URL is a 400 beside the URL; turn off, test and delete", async () => {
    const c = await signedIn(w.editor.email);
    const page = `/app/projects/${w.projectId}/webhooks`;
    const { html } = await c.get(page);
    const csrf = fieldOf(html, "csrf");
    const bad = await c.post(page, { csrf, idem: fieldOf(html, "idem"), name: "Plain", url: "http://receiver.example/hook", format: "standard", eventTypes: "mention.created" });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('value="http://receiver.example/hook" aria-invalid="true" aria-describedby="wh-url-error"><span class="field-error" id="wh-url-error">');
    const fields = { csrf, idem: fieldOf(bad.html, "idem"), name: "From the page", url: UNREACHABLE_RECEIVER, format: "standard", eventTypes: "mention.created" };
    const made = await c.post(page, fields);
    expect(made.res.status).toBe(201);
    // The form sent twice makes one endpoint, and the answer again shows the same secret.
    const again = await c.post(page, fields);
    expect(again.res.status).toBe(201);
    expect(/<code class="secret">(whsec_[^<]+)<\/code>/.exec(again.html)?.[1]).toBe(/<code class="secret">(whsec_[^<]+)<\/code>/.exec(made.html)?.[1]);
    expect(made.res.headers.get("cache-control")).toBe("no-store");
    const secret = /<code class="secret">(whsec_[^<]+)<\/code>/.exec(made.html)?.[1];
    expect(secret).toBeDefined();
    const named = ((await h.call("list_webhooks", { projectId: w.projectId }, w.owner.key)).body.data as Array<{ id: string; name: string }>).filter((e) => e.name === "From the page");
    expect(named).toHaveLength(1);
    const endpoint = named[0]!;
    const here = `${page}/${endpoint.id}`;
    const endpointPage = await c.get(here);
    expect(endpointPage.html).not.toContain(secret!);
    const post = (action: string) => c.post(here, { csrf, action });
    expect((await post("deactivate")).res.status).toBe(303);
    expect((await h.call("get_webhook", { endpointId: endpoint.id }, w.owner.key)).body.data).toMatchObject({ active: false });
    expect((await post("activate")).res.status).toBe(303);
    expect((await post("test")).res.status).toBe(303);
    await waitFor(async () => ((await h.call("list_webhook_deliveries", { endpointId: endpoint.id }, w.owner.key)).body.data as unknown[]).length > 0, 10_000);
    expect((await post("nonsense")).res.status).toBe(400);
    const viewer = await signedIn(w.viewer.email);
    const seen = await viewer.get(here);
    expect(seen.html).not.toContain("Delete endpoint");
    expect((await viewer.get(page)).html).not.toContain("Create endpoint");
    expect((await viewer.post(here, { csrf: fieldOf(seen.html, "csrf"), action: "delete" })).res.status).toBe(403);
    expect((await viewer.post(page, { csrf: fieldOf(seen.html, "csrf"), name: "Sneaky", url: UNREACHABLE_RECEIVER, eventTypes: "mention.created" })).res.status).toBe(403);
    const stranger = await signedIn(w.stranger.email);
    expect((await stranger.post(`/app/projects/${w.strangerProjectId}/webhooks/${endpoint.id}`, { csrf: fieldOf((await stranger.get("/app")).html, "csrf"), action: "delete" })).res.status).toBe(404);
    const deleted = await post("delete");
    expect(deleted.res.headers.get("location")).toBe(page);
    expect((await h.call("get_webhook", { endpointId: endpoint.id }, w.owner.key)).status).toBe(404);
  });
});

describe("sources page", () => {
  test("shows each source's state; an editor adds a feed (a bad URL is a 400 beside it) and deletes it; a viewer cannot; a stranger gets 404", async () => {
    const c = await signedIn(w.editor.email);
    const page = `/app/projects/${w.projectId}/sources`;
    const { res, html } = await c.get(page);
    expect(res.status).toBe(200);
    for (const name of ["X", "Reddit", "YouTube", "LinkedIn", "Hacker News", "Bluesky", "Feeds", "GitHub"]) expect(html).toContain(`<th scope="row">${name}`);
    const csrf = fieldOf(html, "csrf");
    const bad = await c.post(`${page}/feeds`, { csrf, idem: fieldOf(html, "idem"), url: "ftp://news.example/feed" });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('value="ftp://news.example/feed" aria-invalid="true" aria-describedby="feed-url-error"><span class="field-error" id="feed-url-error">');
    // The form sent twice adds one feed.
    const fields = { csrf, idem: fieldOf(bad.html, "idem"), url: "https://127.0.0.1:9/feed.xml", name: "Local news" };
    expect((await c.post(`${page}/feeds`, fields)).res.status).toBe(303);
    expect((await c.post(`${page}/feeds`, fields)).res.status).toBe(303);
    const feeds = ((await h.call("list_feeds", { projectId: w.projectId }, w.owner.key)).body.data as Array<{ id: string; name: string }>).filter((f) => f.name === "Local news");
    expect(feeds).toHaveLength(1);
    const feed = feeds[0]!;
    expect((await c.get(page)).html).toContain("Local news");

    const viewer = await signedIn(w.viewer.email);
    const seen = await viewer.get(page);
    expect(seen.html).toContain("Local news");
    expect(seen.html).not.toContain("Delete feed");
    expect((await viewer.post(`${page}/feeds/${feed.id}`, { csrf: fieldOf(seen.html, "csrf"), action: "delete" })).res.status).toBe(403);
    expect((await viewer.post(`${page}/feeds`, { csrf: fieldOf(seen.html, "csrf"), url: "https://127.0.0.1:9/other.xml" })).res.status).toBe(403);
    const stranger = await signedIn(w.stranger.email);
    expect((await stranger.get(page)).res.status).toBe(404);
    const own = await stranger.get(`/app/projects/${w.strangerProjectId}/sources`);
    expect((await stranger.post(`/app/projects/${w.strangerProjectId}/sources/feeds/${feed.id}`, { csrf: fieldOf(own.html, "csrf"), action: "delete" })).res.status).toBe(404);
    expect((await c.post(`${page}/feeds/${feed.id}`, { csrf, action: "delete" })).res.status).toBe(303);
    expect(((await h.call("list_feeds", { projectId: w.projectId }, w.owner.key)).body.data as unknown[]).some((f) => (f as { id: string }).id === feed.id)).toBe(false);
  });
});

describe("webhook pages", () => {
  test("the delivery log lists a test send; an editor redelivers it; a viewer cannot; a stranger gets 404", async () => {
    const webhook = await createWebhook(h, w.owner, w.projectId);
    expect((await h.call("test_webhook", { endpointId: webhook.id }, w.owner.key)).status).toBe(202);
    let deliveryId = "";
    await waitFor(async () => {
      const list = await h.call("list_webhook_deliveries", { endpointId: webhook.id }, w.owner.key);
      deliveryId = (list.body.data as Array<{ id: string }>)[0]?.id ?? "";
      return deliveryId !== "";
    }, 10_000);
    const page = `/app/projects/${w.projectId}/webhooks/${webhook.id}`;
    const editor = await signedIn(w.editor.email);
    expect((await editor.get(`/app/projects/${w.projectId}/webhooks`)).html).toContain(webhook.id);
    const { res, html } = await editor.get(page);
    expect(res.status).toBe(200);
    expect(html).toContain(deliveryId);
    expect(html).toContain("webhook.test");
    const redeliver = await editor.post(`${page}/deliveries/${deliveryId}/redeliver`, { csrf: fieldOf(html, "csrf") });
    expect(redeliver.res.status).toBe(303);
    expect(redeliver.res.headers.get("location")).toBe(page);

    const viewer = await signedIn(w.viewer.email);
    const seen = await viewer.get(page);
    expect(seen.html).not.toContain("/redeliver");
    expect((await viewer.post(`${page}/deliveries/${deliveryId}/redeliver`, { csrf: fieldOf(seen.html, "csrf") })).res.status).toBe(403);
    const stranger = await signedIn(w.stranger.email);
    expect((await stranger.get(page)).res.status).toBe(404);
    expect((await stranger.get(`/app/projects/${w.strangerProjectId}/webhooks/${webhook.id}`)).res.status).toBe(404);
  });
});

describe("members page", () => {
  const membersOf = async () => (await h.call("list_project_members", { projectId: w.projectId, limit: 100 }, w.owner.key)).body.data as Array<{ id: string; email: string; role: string; status: string }>;

  test("the owner invites and withdraws the invitation, and changes a member's role; a bad email is a 400 beside the email field", async () => {
    const c = await signedIn(w.owner.email);
    const page = `/app/projects/${w.projectId}/members`;
    const { res, html } = await c.get(page);
    expect(res.status).toBe(200);
    const csrf = fieldOf(html, "csrf");
    const bad = await c.post(page, { csrf, email: "not an email", role: "viewer" });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('value="not an email" aria-invalid="true" aria-describedby="inv-email-error"><span class="field-error" id="inv-email-error">');
    expect((await c.post(page, { csrf, email: "web-invitee@example.com", role: "viewer" })).res.status).toBe(303);
    const invited = (await membersOf()).find((m) => m.email === "web-invitee@example.com")!;
    // Roles are changed on members (an invitation is withdrawn and sent again): the editor becomes a viewer and back.
    const editor = (await membersOf()).find((m) => m.email === w.editor.email)!;
    expect((await c.post(`${page}/${editor.id}`, { csrf, action: "role", role: "viewer" })).res.status).toBe(303);
    expect((await membersOf()).find((m) => m.id === editor.id)?.role).toBe("viewer");
    expect((await c.post(`${page}/${editor.id}`, { csrf, action: "role", role: "editor" })).res.status).toBe(303);
    expect((await c.post(`${page}/${invited.id}`, { csrf, action: "remove", memberType: "invite" })).res.status).toBe(303);
    expect((await membersOf()).find((m) => m.id === invited.id && m.status === "pending")).toBeUndefined();
  });

  test("an editor sees members without forms and a forged invitation is 403; a stranger gets 404", async () => {
    const c = await signedIn(w.editor.email);
    const page = `/app/projects/${w.projectId}/members`;
    const { html } = await c.get(page);
    expect(html).toContain(w.viewer.email);
    expect(html).not.toContain("Send invitation");
    expect((await c.post(page, { csrf: fieldOf(html, "csrf"), email: "sneaky@example.com", role: "editor" })).res.status).toBe(403);
    const stranger = await signedIn(w.stranger.email);
    expect((await stranger.get(page)).res.status).toBe(404);
  });
});
