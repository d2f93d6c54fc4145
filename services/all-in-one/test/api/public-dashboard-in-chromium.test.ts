import type { Browser, Page } from "playwright-core";
import { describeInChromium, launchChromium, seriousViolations, watchConsole } from "./chromium";
import { type Actor, type Harness, startHarness } from "./harness";
import { SCRIPT_TEXT, type SeededDashboard, seedDashboard } from "./public-dashboard-world";

// The public dashboard as a visitor's browser shows it, in real Chromium: the charts drawn with a size,
// the mentions listed, the period and the source filter redrawing both, "More mentions" appending the
// next page, all of it readable with JavaScript off, on a phone's width without sideways scrolling, with
// no console error (the strict CSP would log any inline script or style) and no serious axe violation.
// Set EARSHOT_DASHBOARD_SCREENSHOT to a file path to save a screenshot of the page there.

jest.setTimeout(60_000);

describeInChromium("the public dashboard in Chromium", () => {
  let h: Harness;
  let owner: Actor;
  let browser: Browser;
  let seeded: SeededDashboard;

  beforeAll(async () => {
    h = await startHarness({ EARSHOT_DASHBOARD_RATE_LIMIT_PER_MINUTE: "100000" });
    owner = await h.newActor();
    seeded = await seedDashboard(h, owner);
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  const open = async (url: string, options: { javaScript?: boolean; width?: number } = {}): Promise<{ page: Page; errors: string[] }> => {
    const context = await browser.newContext({ javaScriptEnabled: options.javaScript ?? true, viewport: { width: options.width ?? 1280, height: 900 } });
    const page = await context.newPage();
    const errors = watchConsole(page);
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    return { page, errors };
  };

  const summary = async (page: Page) => (await page.locator(".summary").textContent()) ?? "";
  const mentionSources = (page: Page) => page.locator("#mention-list .src").evaluateAll((icons) => icons.map((i) => i.getAttribute("aria-label")));

  it("draws the four charts with a size and lists the latest mentions, the script in a mention shown as text", async () => {
    const { page, errors } = await open(seeded.shareUrl);
    await page.getByRole("heading", { level: 1, name: "Acme Launch" }).waitFor();
    for (const id of ["chart-volume", "chart-groups", "chart-keywords", "chart-sentiment"]) {
      const box = await page.locator(`#${id}`).boundingBox();
      expect({ id, drawn: (box?.width ?? 0) > 0 && (box?.height ?? 0) > 0 }).toEqual({ id, drawn: true });
    }
    expect(await page.locator("#chart-volume rect").count()).toBeGreaterThan(10);
    expect(await page.locator("#mention-list > li").count()).toBe(20);
    expect(await page.locator("#mention-list mark").first().textContent()).toMatch(/^(Acme|Globex)$/);
    expect(await page.title()).not.toBe("owned");
    expect(await page.locator("#mention-list").textContent()).toContain(SCRIPT_TEXT);
    expect(errors).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    if (process.env.EARSHOT_DASHBOARD_SCREENSHOT) await page.screenshot({ path: process.env.EARSHOT_DASHBOARD_SCREENSHOT, fullPage: false });
    await page.context().close();
  });

  it("redraws the charts and the list in place when the period or the source filter changes", async () => {
    const { page, errors } = await open(seeded.shareUrl);
    expect(await summary(page)).toContain(`${seeded.recent.total} mentions in the last 30 days`);
    await page.getByRole("radio", { name: "90 days" }).check();
    await page.waitForFunction(() => document.querySelector(".summary")?.textContent?.includes("last 90 days"));
    expect(await summary(page)).toContain(`${seeded.recent.total + 1} mentions`);
    expect(page.url()).toContain("days=90");
    expect(await page.locator("#chart-volume rect").count()).toBeGreaterThan(10);

    await page.getByRole("checkbox", { name: "Reddit" }).check();
    await page.waitForFunction(() => document.querySelector(".summary")?.textContent?.includes("on Reddit"));
    expect(await summary(page)).toContain(`${seeded.recent.reddit} mentions`);
    expect(new Set(await mentionSources(page))).toEqual(new Set(["Reddit"]));
    expect(await page.locator("#chart-volume .fill-x").count()).toBe(0);
    expect(errors).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it("appends the next page of mentions with More, moving focus to the first new one", async () => {
    const { page, errors } = await open(`${seeded.shareUrl}?days=90`);
    expect(await page.locator("#mention-list > li").count()).toBe(20);
    await page.getByRole("link", { name: "More mentions" }).click();
    await page.waitForFunction(() => document.querySelectorAll("#mention-list > li").length > 20);
    expect(await page.locator("#mention-list > li").count()).toBe(seeded.recent.total + 1);
    expect(await page.getByRole("link", { name: "More mentions" }).count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.matches("#mention-list > li"))).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("works with JavaScript off: the filters are a form and More a link to the next page", async () => {
    const { page, errors } = await open(seeded.shareUrl, { javaScript: false });
    expect(await page.locator("#chart-groups").boundingBox()).not.toBeNull();
    await page.getByRole("radio", { name: "7 days" }).check();
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/days=7/);
    expect(await summary(page)).toContain("in the last 7 days");
    await page.goto(`${seeded.shareUrl}?days=90`);
    await page.getByRole("link", { name: "More mentions" }).click();
    await page.waitForURL(/cursor=/);
    expect(await page.locator("#mention-list > li").count()).toBe(seeded.recent.total + 1 - 20);
    expect(await page.getByRole("link", { name: /Back to the newest/ }).count()).toBe(1);
    // axe runs in the page's JavaScript, which is off here; the same HTML passes it in the tests above.
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("fits a 390 px wide phone without sideways scrolling", async () => {
    const { page, errors } = await open(seeded.shareUrl, { width: 390 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it("answers an unknown share id with a plain, accessible 404 page", async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${h.url}/p/noSuchDashboard`);
    expect(res?.status()).toBe(404);
    await page.getByRole("heading", { level: 1, name: "Dashboard not found" }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});
