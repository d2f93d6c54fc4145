import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium } from "playwright-core";
import { type Harness, startHarness } from "./harness";
import { TestOAuthClient } from "./oauth-client";

// A person in real Chromium signs in and approves the consent page; the MCP client receives its code.
// `make test` installs Debian's chromium when it is missing; where that is impossible this suite is
// skipped with the reason printed.

const CHROMIUM = process.env.EARSHOT_CHROMIUM ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available) process.stdout.write(`[browser] SKIPPED "OAuth in Chromium": no Chromium at ${CHROMIUM} (make test installs Debian's chromium; it could not here)\n`);
const describeBrowser = available ? describe : describe.skip;

describeBrowser("OAuth sign-in and consent in Chromium", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("lets a person sign in and approve, and the client receives its code and connects", async () => {
    const owner = await h.newActor();
    const provider = new TestOAuthClient();
    const first = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: "browser-test", version: "1" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);

    // playwright launches with a fresh temporary profile of its own.
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    try {
      const page = await browser.newPage();
      let callback: URL | undefined;
      // The client's redirect URI: nothing listens there, the browser's arrival is the point.
      await page.route("http://localhost:53682/**", async (route) => {
        callback = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: "text/html", body: "<p>You can close this window.</p>" });
      });
      await page.goto(provider.authorizationUrl!.href);
      await page.getByLabel("Email").fill(owner.email);
      await page.getByLabel("Password").fill("correct horse battery");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Allow access?" }).waitFor();
      expect(await page.textContent("body")).toContain("Earshot test agent");
      expect(await page.textContent("body")).toContain("localhost:53682");
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL(/localhost:53682\/callback/);
      expect(callback?.searchParams.get("code")).toBeTruthy();
      expect(callback?.searchParams.get("iss")).toBe(h.url);
      await first.finishAuth(callback!.searchParams.get("code")!);
    } finally {
      await browser.close();
    }
    const client = new Client({ name: "browser-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { authProvider: provider }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  }, 60_000);
});
