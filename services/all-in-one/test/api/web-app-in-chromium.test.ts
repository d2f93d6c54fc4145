import { waitFor } from "@earshot/platform/testing";
import { simpleParser } from "mailparser";
import type { Browser, Page } from "playwright-core";
import { describeInChromium, launchChromium, seriousViolations, watchConsole } from "./chromium";
import { type Harness, startHarness } from "./harness";
import { PASSWORD } from "./web-client";
import { buildWorld, createKeyword, keywordWithMentions, type MentionData, uniqueName, type World } from "./world";

// The web app as a person uses it, in real Chromium with JavaScript on and off: an email link to the
// inbox asks for sign-in first and returns there, three mentions are triaged (status, relevance,
// category) with the pages' own forms, the mention page shows the change, a keyword moves to another
// group, the Daily Digest is turned off (and on), an alert is created (a refused form first, its message
// beside the field), a webhook delivery is redelivered, sign-out ends it; an alert email's unsubscribe link
// turns its alert off and back on without a session. No page logs
// an error; with JavaScript on (at phone width) every page passes axe-core (no serious or critical
// violation) and needs no sideways scrolling.

describeInChromium("web app in Chromium", () => {
  let h: Harness;
  let w: World;
  let browser: Browser;
  let categoryId: string;
  let webhookId: string;
  let unsubscribe: string;
  const mentionsFor: Record<string, MentionData[]> = {};

  beforeAll(async () => {
    h = await startHarness({ EARSHOT_DIGEST_TICK_SECONDS: "0.05" });
    w = await buildWorld(h);
    // An instant alert, so the mentions below send an email with an unsubscribe link.
    await h.call("create_alert", { projectId: w.projectId, name: "Right away", instant: true }, w.owner.key);
    const category = await h.call("create_category", { projectId: w.projectId, name: "Praise" }, w.owner.key);
    categoryId = (category.body.data as { id: string }).id;
    const { mentions } = await keywordWithMentions(h, w.owner, w.projectId, 6);
    mentionsFor.on = mentions.slice(0, 3);
    mentionsFor.off = mentions.slice(3, 6);
    const webhook = await h.call("create_webhook", { projectId: w.projectId, name: "Web hook", url: "https://127.0.0.1:9/hook", eventTypes: ["mention.created"] }, w.owner.key);
    webhookId = (webhook.body.data as { id: string }).id;
    await h.call("test_webhook", { endpointId: webhookId }, w.owner.key);
    await waitFor(async () => ((await h.call("list_webhook_deliveries", { endpointId: webhookId }, w.owner.key)).body.data as unknown[]).length > 0, 10_000);
    const mail = () => h.mail.find((m) => m.to.includes(w.owner.email) && m.raw.includes("Right away for "));
    await waitFor(() => mail() !== undefined, 10_000);
    const link = ((await simpleParser(mail()!.raw)).headers.get("list") as { unsubscribe: { url: string } }).unsubscribe.url;
    unsubscribe = `${h.url}${new URL(link).pathname}`;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  /** No errors logged; with JavaScript on (that run is at phone width), axe-core clean and no sideways scrolling. */
  const expectClean = async (page: Page, errors: string[], javaScript: boolean) => {
    expect(errors).toEqual([]);
    // axe runs in the page's JavaScript, so only the run with it on can check; the HTML is the same.
    if (!javaScript) return;
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  };

  for (const javaScript of [true, false]) {
    it(`signs in from a link, triages three mentions, moves a keyword, toggles an alert and creates one, redelivers a webhook delivery, signs out and unsubscribes from an email, JavaScript ${javaScript ? "on" : "off"}`, async () => {
      const context = await browser.newContext({ javaScriptEnabled: javaScript, viewport: { width: javaScript ? 390 : 1280, height: 900 } });
      const page = await context.newPage();
      // A step that cannot happen fails in seconds with its locator named, not at the test's timeout.
      page.setDefaultTimeout(5000);
      const errors = watchConsole(page);
      const inbox = `${h.url}/app/projects/${w.projectId}`;
      await page.goto(`${inbox}?status=open`);
      await page.waitForURL(/\/app\/sign-in\?next=/);
      await expectClean(page, errors, javaScript);
      await page.getByLabel("Email").fill(w.editor.email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${inbox}?status=open`);
      await expectClean(page, errors, javaScript);
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name === "earshot_app")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
      if (javaScript) expect(await page.evaluate(() => document.cookie)).not.toContain("earshot_app");

      const [first, second, third] = mentionsFor[javaScript ? "on" : "off"]!;
      const card = (m: MentionData) => page.locator(`article[id="${m.id}"]`);
      // With JavaScript the mention is updated in place, without it the page comes back: either way its tags say so.
      const tag = (m: MentionData, text: string) => card(m).locator(".tag", { hasText: text }).waitFor();
      // Done, it leaves an inbox of open mentions.
      await card(first!).getByRole("button", { name: /^Done/ }).click();
      await card(first!).waitFor({ state: "detached" });
      await card(second!).getByRole("button", { name: /^Relevant/ }).click();
      await tag(second!, "rated relevant");
      await card(third!).getByLabel("Category").selectOption(categoryId);
      await card(third!).getByRole("button", { name: "Set category" }).click();
      await tag(third!, "Praise");
      if (javaScript) expect(page.url()).toBe(`${inbox}?status=open`);
      await expectClean(page, errors, javaScript);

      const state = async (m: MentionData) => (await h.call("get_mention", { mentionId: m.id }, w.owner.key)).body.data as { status: string; categoryId: string | null; feedback: { relevant: boolean } | null };
      expect((await state(first!)).status).toBe("done");
      expect((await state(second!)).feedback).toMatchObject({ relevant: true });
      expect((await state(third!)).categoryId).toBe(categoryId);

      if (javaScript) {
        // Shortcuts are off while a control has focus (the triage button just used keeps it).
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        await page.locator("body").press("j");
        expect(await page.evaluate(() => document.activeElement?.className)).toBe("m-open");
      }
      await card(third!).getByRole("link", { name: /^Details/ }).click();
      await page.waitForURL(`${inbox}/mentions/${third!.id}`);
      await page.getByRole("heading", { name: "History" }).waitFor();
      expect(await page.textContent("main")).toContain(`categoryId none → ${categoryId}`);
      await expectClean(page, errors, javaScript);

      // Move a keyword to Competitors, then toggle the Daily Digest (off in one run, on again in the other).
      const keyword = await createKeyword(h, w.owner, w.projectId, { value: uniqueName("Gizmo") });
      await page.getByRole("link", { name: "Keywords" }).click();
      await page.waitForURL(`${inbox}/keywords`);
      await expectClean(page, errors, javaScript);
      await page.getByLabel(`Group of ${keyword.value}`).selectOption({ label: "Competitors" });
      await page.getByRole("button", { name: `Move ${keyword.value}` }).click();
      await page.waitForURL(`${inbox}/keywords#${keyword.id}`);
      const groups = (await h.call("list_keyword_groups", { projectId: w.projectId }, w.owner.key)).body.data as Array<{ id: string; name: string }>;
      const moved = (await h.call("get_keyword", { keywordId: keyword.id }, w.owner.key)).body.data as { groupId: string };
      expect(moved.groupId).toBe(groups.find((g) => g.name === "Competitors")!.id);
      await page.getByRole("link", { name: "Alerts" }).click();
      await page.waitForURL(`${inbox}/alerts`);
      await expectClean(page, errors, javaScript);
      const digest = ((await h.call("list_alerts", { projectId: w.projectId }, w.owner.key)).body.data as Array<{ id: string; name: string; active: boolean }>).find((a) => a.name === "Daily Digest")!;
      await page.getByRole("button", { name: `Turn ${digest.active ? "off" : "on"} Daily Digest` }).click();
      await page.waitForURL(`${inbox}/alerts#${digest.id}`);
      expect(((await h.call("get_alert", { alertId: digest.id }, w.owner.key)).body.data as { active: boolean }).active).toBe(!digest.active);

      // Create an alert; a refused one first (the browser's own checks off), its message beside the field.
      const newAlert = page.locator('form:has(#new-alert-name)');
      await newAlert.evaluate((form) => ((form as HTMLFormElement).noValidate = true));
      await newAlert.getByLabel("Digest hour (0–23)").fill("99");
      await newAlert.getByLabel("Name").fill(`Web alert ${javaScript ? "on" : "off"}`);
      await newAlert.getByRole("button", { name: "Create alert" }).click();
      await page.locator("#hour-new-error").waitFor();
      expect(await page.getByLabel("Name").first().inputValue()).toBe(`Web alert ${javaScript ? "on" : "off"}`);
      // The refused form's answer is a 400 page, which the browser logs; nothing else may be.
      expect(errors.splice(0)).toEqual(["Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
      await expectClean(page, errors, javaScript);
      await page.locator('form:has(#new-alert-name)').getByLabel("Digest hour (0–23)").fill("9");
      await page.locator('form:has(#new-alert-name)').getByRole("button", { name: "Create alert" }).click();
      await page.waitForURL(new RegExp(`${inbox}/alerts#alr_`));
      await page.getByRole("heading", { name: `Web alert ${javaScript ? "on" : "off"}` }).waitFor();

      await page.getByRole("link", { name: "Sources" }).click();
      await page.waitForURL(`${inbox}/sources`);
      await page.getByRole("heading", { name: "Feeds" }).waitFor();
      await expectClean(page, errors, javaScript);

      // Redeliver the test send from the endpoint's delivery log.
      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.waitForURL(`${inbox}/webhooks`);
      await expectClean(page, errors, javaScript);
      await page.getByRole("link", { name: "Web hook" }).click();
      await page.waitForURL(`${inbox}/webhooks/${webhookId}`);
      await expectClean(page, errors, javaScript);
      await page.getByRole("button", { name: /^Redeliver webhook\.test/ }).click();
      await page.waitForURL(`${inbox}/webhooks/${webhookId}`);
      await page.getByRole("heading", { name: "Deliveries, newest first" }).waitFor();

      await page.getByRole("link", { name: "Members" }).click();
      await page.waitForURL(`${inbox}/members`);
      await expectClean(page, errors, javaScript);

      await page.getByRole("link", { name: "Projects" }).click();
      await page.waitForURL(`${h.url}/app`);
      await expectClean(page, errors, javaScript);

      await page.getByRole("button", { name: /^Sign out/ }).click();
      await page.waitForURL(`${h.url}/app/sign-in`);
      await page.goto(inbox);
      await page.waitForURL(/\/app\/sign-in\?next=/);

      // Signed out, the email's unsubscribe link still works: confirm, then undo (once, in the first run).
      if (javaScript) {
        const alertOf = async () => ((await h.call("list_alerts", { projectId: w.projectId }, w.owner.key)).body.data as Array<{ name: string; active: boolean }>).find((a) => a.name === "Right away")!;
        await page.goto(unsubscribe);
        await page.getByRole("heading", { name: "Unsubscribe" }).waitFor();
        await expectClean(page, errors, javaScript);
        expect((await alertOf()).active).toBe(true);
        await page.getByRole("button", { name: "Turn off" }).click();
        await page.getByRole("heading", { name: "Unsubscribed" }).waitFor();
        await expectClean(page, errors, javaScript);
        expect((await alertOf()).active).toBe(false);
        await page.getByRole("button", { name: "Turn it back on" }).click();
        await page.getByRole("heading", { name: "Alert on again" }).waitFor();
        await expectClean(page, errors, javaScript);
        expect((await alertOf()).active).toBe(true);
      }
      await context.close();
    });
  }
});
