import { waitFor } from "../../../platform/src/testing/tmp";
import { type Actor, type Harness, startHarness } from "./harness";
import { SCRIPT_TEXT, type SeededDashboard, seedDashboard } from "./public-dashboard-world";

// The public dashboard over HTTP: the page and its JSON for anyone holding the share URL, nothing private
// in any of them, the same plain 404 for every dashboard that is not served, 400 (never 500) for a bad
// query value, and the headers that make it safe to embed and cache.

describe("public dashboard", () => {
  let h: Harness;
  let owner: Actor;
  let seeded: SeededDashboard;

  beforeAll(async () => {
    h = await startHarness({ EARSHOT_DASHBOARD_RATE_LIMIT_PER_MINUTE: "100000" });
    owner = await h.newActor({ name: "Olive Owner" });
    seeded = await seedDashboard(h, owner);
  }, 60_000);
  afterAll(() => h?.stop());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${seeded.shareUrl}${path}`, { headers });
  const expectNoSecrets = (text: string) => {
    for (const secret of seeded.secrets) expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
    expect(text).not.toMatch(/"(status|categoryId|history|keywordIds|groupIds|id|projectId|workspaceId)"\s*:/);
  };

  it("serves the page with the project's public face, its counts and the latest mentions, and nothing private", async () => {
    const res = await get("");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Acme Launch");
    expect(html).toContain("What people say about our launch");
    expect(html).toContain(`<strong>${seeded.recent.total}</strong> mentions in the last 30 days`);
    expect(html).toContain("<mark>Acme</mark>");
    // User text is escaped: the script is shown as text.
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain(SCRIPT_TEXT);
    expectNoSecrets(html);
  });

  it("answers mentions.json and analytics.json with the page's filters, CORS-open and cacheable", async () => {
    const mentions = await get("/mentions.json?source=reddit&limit=5");
    expect(mentions.status).toBe(200);
    expect(mentions.headers.get("access-control-allow-origin")).toBe("*");
    expect(mentions.headers.get("cache-control")).toBe("public, max-age=60");
    const body = (await mentions.json()) as { data: Array<{ source: string; keywords: string[] }>; meta: { nextCursor: string | null } };
    expect(body.data).toHaveLength(5);
    expect(new Set(body.data.map((m) => m.source))).toEqual(new Set(["reddit"]));
    expect(body.meta.nextCursor).toEqual(expect.any(String));

    const analytics = await get("/analytics.json?days=90");
    const a = ((await analytics.json()) as { data: { total: number; days: unknown[]; byGroup: Array<{ name: string }>; byKeyword: Array<{ name: string }> } }).data;
    expect(a.total).toBe(seeded.recent.total + 1);
    expect(a.days).toHaveLength(90);
    expect(a.byGroup.map((g) => g.name).sort()).toEqual(["My brand", "Rivals"]);
    expect(a.byKeyword.map((k) => k.name).sort()).toEqual(["Acme", "Globex"]);
    const rivals = ((await (await get("/analytics.json?group=Rivals")).json()) as { data: { byKeyword: Array<{ name: string }> } }).data;
    expect(rivals.byKeyword.map((k) => k.name)).toContain("Globex");

    const etag = analytics.headers.get("etag")!;
    expect(etag).toMatch(/^"/);
    expect((await get("/analytics.json?days=90", { "If-None-Match": etag })).status).toBe(304);
  });

  it("keeps private fields out of both JSON answers, following every page", async () => {
    let cursor: string | null = "";
    let pages = 0;
    while (cursor !== null) {
      const text = await (await get(`/mentions.json?days=90&limit=10${cursor ? `&cursor=${cursor}` : ""}`)).text();
      expectNoSecrets(text);
      cursor = (JSON.parse(text) as { meta: { nextCursor: string | null } }).meta.nextCursor;
      pages += 1;
    }
    expect(pages).toBeGreaterThan(2);
    expectNoSecrets(await (await get("/analytics.json?days=90")).text());
  });

  it("sets a CSP without inline scripts that allows framing, nosniff and no referrer", async () => {
    const res = await get("");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors *");
    expect(res.headers.get("x-frame-options")).toBeNull();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
  });

  it("answers a bad query value with 400 naming it, as a page or a problem, never 500", async () => {
    for (const query of ["?days=14", "?days=abc", "?source=myspace", "?group=Nope", "?cursor=garbage", "?cursor=W10", "?days=7&days=30", `?group=${"g".repeat(200)}`]) {
      const page = await get(query);
      expect({ query, status: page.status }).toEqual({ query, status: 400 });
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const json = await get(`/mentions.json${query}`);
      expect({ query, status: json.status }).toEqual({ query, status: 400 });
      expect(((await json.json()) as { errors: Array<{ path: string }> }).errors[0]!.path).toMatch(/^(days|source|group|cursor)$/);
    }
    expect((await get("/mentions.json?limit=0")).status).toBe(400);
  });

  it("answers the same plain 404 for an unknown share id and for a disabled, archived or deactivated owner's dashboard, and keeps the share id", async () => {
    const unknown = await fetch(`${h.url}/p/notAShareId`);
    expect(unknown.status).toBe(404);
    const plain = await unknown.text();
    expect((await fetch(`${h.url}/p/notAShareId/analytics.json`)).status).toBe(404);
    expect((await fetch(`${h.url}/p/${"%00".repeat(3)}`)).status).toBe(404);

    const other = await h.newActor();
    const disabled = await seedDashboard(h, other, "Disabled one");
    await h.call("set_public_dashboard", { projectId: disabled.projectId, enabled: false }, other.key);
    await waitFor(async () => (await fetch(disabled.shareUrl)).status === 404, 15_000);
    expect(await (await fetch(disabled.shareUrl)).text()).toBe(plain);
    expect((await fetch(`${disabled.shareUrl}/mentions.json`)).status).toBe(404);
    const again = await h.call("set_public_dashboard", { projectId: disabled.projectId, enabled: true }, other.key);
    expect((again.body.data as { publicDashboard: { shareUrl: string } }).publicDashboard.shareUrl).toBe(disabled.shareUrl);
    await waitFor(async () => (await fetch(disabled.shareUrl)).status === 200, 15_000);

    expect((await h.call("delete_account", { confirmation: "DELETE" }, other.key)).status).toBe(200);
    await waitFor(async () => (await fetch(disabled.shareUrl)).status === 404, 15_000);
    expect(await (await fetch(disabled.shareUrl)).text()).toBe(plain);

    const archived = await seedDashboard(h, owner, "Archived one");
    await h.call("archive_project", { projectId: archived.projectId }, owner.key);
    await waitFor(async () => (await fetch(archived.shareUrl)).status === 404, 15_000);
    expect(await (await fetch(archived.shareUrl)).text()).toBe(plain);
  }, 60_000);

  it("shows a project paused by its owner with its data and a note that collection is paused", async () => {
    await h.call("update_project", { projectId: seeded.projectId, status: "paused" }, owner.key);
    await waitFor(async () => (await (await get("")).text()).includes("Collection is paused"), 15_000);
    expect(await (await get("")).text()).toContain("<mark>Acme</mark>");
    await h.call("update_project", { projectId: seeded.projectId, status: "active" }, owner.key);
    await waitFor(async () => !(await (await get("")).text()).includes("Collection is paused"), 15_000);
  });
});

describe("public dashboard rate limit", () => {
  it("limits each client address to EARSHOT_DASHBOARD_RATE_LIMIT_PER_MINUTE, announcing it, with Retry-After on 429", async () => {
    const h = await startHarness({ EARSHOT_DASHBOARD_RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 5; i += 1) {
        last = await fetch(`${h.url}/p/someShareId/mentions.json`);
        statuses.push(last.status);
      }
      expect(statuses).toEqual([404, 404, 404, 429, 429]);
      expect(last!.headers.get("retry-after")).toMatch(/^\d+$/);
      expect((await fetch(`${h.url}/p/someShareId`)).status).toBe(429);
    } finally {
      await h.stop();
    }
  });
});
