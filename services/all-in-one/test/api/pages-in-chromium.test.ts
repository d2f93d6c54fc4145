import { ManualClock } from "@earshot/platform";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import type { Browser, Page } from "playwright-core";
import { describeInChromium, launchChromium, seriousViolations, watchConsole } from "./chromium";
import { type Actor, type Harness, startHarness } from "./harness";
import { ACME, ACME_LABS, authorizeAtLinkedin, connectUrlOf } from "./linkedin-flow";
import { createProject, uniqueName } from "./world";

// The pages a person opens, in real Chromium: the front door at `/`, and the LinkedIn callback page's
// form that chooses the Page, with its confirmation and its refusals (a reused or expired connect state,
// a form used twice or too late). Every page loads without console errors and passes axe-core with no
// serious or critical violation.

describeInChromium("pages in Chromium", () => {
  let sims: RunningSimulators;
  let h: Harness;
  let browser: Browser;
  let owner: Actor;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    sims = await startSimulators({ platforms: ["linkedin"], generate: false, now: () => clock.now().getTime() });
    h = await startHarness({ ...sims.settings, EARSHOT_POLL_INTERVAL_SECONDS: "86400" }, clock);
    owner = await h.newActor();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    await sims?.close();
  });

  /** A fresh page whose console errors are collected; a 4xx document is logged by Chromium as a failed load, which `expectedStatus` allows. */
  const open = async (url: string, expectedStatus = 200): Promise<{ page: Page; errors: string[] }> => {
    const page = await browser.newPage();
    const errors = watchConsole(page);
    const res = await page.goto(url);
    expect(res?.status()).toBe(expectedStatus);
    return { page, errors };
  };

  const expectClean = async (page: Page, errors: string[], allowedStatus?: number) => {
    const unexpected = errors.filter((e) => allowedStatus === undefined || !e.includes(`status of ${allowedStatus}`));
    expect(unexpected).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  };

  describe("the front door", () => {
    it("tells a visitor what Earshot is, where the docs, the OpenAPI document and the MCP server are, and where the operator's credentials are, without them", async () => {
      const { page, errors } = await open(`${h.url}/`);
      const res = await page.request.get(`${h.url}/`);
      expect(res.headers()["content-security-policy"]).toContain("default-src 'none'");
      expect(res.headers()["x-content-type-options"]).toBe("nosniff");
      await page.getByRole("heading", { level: 1, name: `Earshot at ${new URL(h.url).host}` }).waitFor();
      const text = (await page.textContent("body")) ?? "";
      expect(text).toContain("API 2026-08-24");
      expect(text).toContain(`${h.url}/mcp`);
      expect(text).toContain(JSON.stringify({ mcpServers: { earshot: { url: `${h.url}/mcp` } } }));
      expect(text).toContain(".data/bootstrap.json");
      // Public page: the first owner's secrets never appear on it.
      const bootstrap = h.running.bootstrap!;
      expect(text).not.toContain(bootstrap.apiKey);
      expect(text).not.toContain(bootstrap.password);
      await expectClean(page, errors);

      await page.getByRole("link", { name: "OpenAPI 3.1 document" }).click();
      await page.waitForURL(`${h.url}/api/v1/openapi.json`);
      expect(JSON.parse((await page.textContent("body")) ?? "{}")).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
      await page.goBack();
      await page.getByRole("link", { name: "API reference" }).click();
      await page.waitForURL(`${h.url}/docs`);
      expect(errors).toEqual([]);
      await page.close();
    });
  });

  describe("choosing the LinkedIn Page on the callback page", () => {
    const authorized = async (projectName: string) => {
      const projectId = await createProject(h, owner, projectName);
      const callback = await authorizeAtLinkedin(await connectUrlOf(h, owner, projectId), "member-a");
      return { projectId, callback };
    };

    it("shows the project's name and the Pages, chooses one, and says what happens next; the connect state and the form work once", async () => {
      const name = uniqueName("Launch");
      const { projectId, callback } = await authorized(name);
      const { page, errors } = await open(callback);
      await page.getByRole("heading", { name: "LinkedIn connected" }).waitFor();
      expect(await page.textContent("main")).toContain(`LinkedIn is connected for ${name}.`);
      await expectClean(page, errors);
      const form = { choice: await page.inputValue('input[name="choice"]'), csrf: await page.inputValue('input[name="csrf"]') };

      await page.getByLabel("Acme Labs").check();
      await page.getByRole("button", { name: "Collect from this Page" }).click();
      await page.getByRole("heading", { name: "LinkedIn Page chosen" }).waitFor();
      const confirmation = (await page.textContent("main")) ?? "";
      expect(confirmation).toContain(`${name} now collects the mentions of Acme Labs`);
      expect(confirmation).toContain("The first sync starts now");
      expect(confirmation).toContain("your plan allows 20 a day");
      await expectClean(page, errors);
      const integration = await h.call("get_linkedin_integration", { projectId }, owner.key);
      expect(integration.body.data).toMatchObject({ status: "connected", page: { organizationUrn: ACME_LABS, name: "Acme Labs" } });

      // The callback URL again (history, a reload): its connect state was used.
      const reused = await open(callback, 400);
      expect(await reused.page.textContent("main")).toMatch(/state was already used/);
      await expectClean(reused.page, reused.errors, 400);

      // The form posted again, with its token and this browser's CSRF cookie: used once already.
      await page.goto(`${h.url}/`);
      await page.evaluate(({ choice, csrf, urn }) => {
        const f = document.createElement("form");
        f.method = "post";
        f.action = "/integrations/linkedin/callback";
        for (const [k, v] of Object.entries({ choice, csrf, organizationUrn: urn })) {
          const input = document.createElement("input");
          input.type = "hidden";
          input.name = k;
          input.value = v;
          f.append(input);
        }
        document.body.append(f);
        f.submit();
      }, { ...form, urn: ACME });
      await page.getByRole("heading", { name: "Page not chosen" }).waitFor();
      expect(await page.textContent("main")).toMatch(/pageChoiceToken was already used/);
      expect((await h.call("get_linkedin_integration", { projectId }, owner.key)).body.data).toMatchObject({ page: { organizationUrn: ACME_LABS } });
      await expectClean(page, errors.filter((e) => !e.includes("status of 400")));
      await page.close();
      await reused.page.close();
    });

    it("refuses the form once the connect state expired, and a callback that comes too late", async () => {
      const early = await authorized(uniqueName("Early"));
      const { page, errors } = await open(early.callback);
      await page.getByLabel("Acme Corp").check();
      const late = await authorized(uniqueName("Late"));
      clock.advance(10 * 60_000 + 1);

      await page.getByRole("button", { name: "Collect from this Page" }).click();
      await page.getByRole("heading", { name: "Page not chosen" }).waitFor();
      expect(await page.textContent("main")).toMatch(/pageChoiceToken has expired/);
      await expectClean(page, errors, 400);
      expect((await h.call("get_linkedin_integration", { projectId: early.projectId }, owner.key)).body.data).toMatchObject({ status: "pending_page", page: null });

      const tooLate = await open(late.callback, 400);
      expect(await tooLate.page.textContent("main")).toMatch(/state has expired/);
      await expectClean(tooLate.page, tooLate.errors, 400);
      await page.close();
      await tooLate.page.close();
    });
  });
});
