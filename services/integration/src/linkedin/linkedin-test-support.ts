import { silentLogger } from "@earshot/platform";
import type { RunningSimulators } from "@earshot/simulators";
import type { CollectorDeps } from "../collectors/collector-deps";
import { ProviderHttp } from "../collectors/provider-http";
import { memoryQuotaLedger } from "../collectors/quota-test-support";
import { integrationSettingsOf } from "../config";
import { LinkedinApi } from "./linkedin-api";

// Tests drive LinkedIn's authorization like a browser would, without one: open the page, post its form.

export const TEST_REDIRECT_URI = "http://127.0.0.1:9/api/v1/integrations/linkedin/callback";

export const linkedinTestDeps = (sims: RunningSimulators, now: () => number): CollectorDeps => ({
  settings: integrationSettingsOf(sims.settings),
  http: new ProviderHttp({ retryBaseMs: 1, random: () => 0, now }),
  quota: memoryQuotaLedger(0).ledger,
  logger: silentLogger(),
  now: () => new Date(now()),
});

/** Signs `member` in on the authorization page and allows; answers the redirect's query. */
export const allowOnAuthorizationPage = async (authorizationUrl: string, member: string): Promise<URLSearchParams> => {
  const page = await fetch(authorizationUrl);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form on the authorization page (${page.status})`);
  const form = new URLSearchParams([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [m[1] ?? "", (m[2] ?? "").replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)))]));
  form.set("member", member);
  form.set("action", "allow");
  const res = await fetch(new URL(action, authorizationUrl), { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
  return new URL(res.headers.get("location") ?? "about:blank").searchParams;
};

/** An access token of `member` through the whole authorization-code flow. */
export const linkedinAccessToken = async (api: LinkedinApi, member: string): Promise<string> => {
  const back = await allowOnAuthorizationPage(api.authorizationUrl({ state: "test-state", redirectUri: TEST_REDIRECT_URI }), member);
  return (await api.exchangeCode({ code: back.get("code") ?? "", redirectUri: TEST_REDIRECT_URI })).accessToken;
};
