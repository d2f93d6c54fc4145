import { feedFailingEmail } from "@earshot/integration";
import { endpointDeactivatedEmail } from "@earshot/webhook";
import { waitFor } from "@earshot/platform/testing";
import { simpleParser } from "mailparser";
import { createWebhook } from "./cases/webhooks";
import { type Actor, type Harness, startHarness } from "./harness";
import { WebClient } from "./web-client";
import { createProject, keywordWithMentions } from "./world";

// Alerts end to end: a new project has its Daily Digest rule; an editor's instant rule emails the workspace
// owner (through a real SMTP server) once a matching post is imported; `digest send` (the operators' call)
// emails the day's digest at once. Every link of every email opens a page once signed in, and the alert
// emails' one-click unsubscribe (RFC 8058) turns that one alert off with no sign-in, once. The digest
// service ticks every 50 ms here; one all-in-one for the suite.

let h: Harness;
let owner: Actor;
let projectId: string;
let ruleId: string;
let dailyDigestId: string;
let instantRaw: string;
beforeAll(async () => {
  h = await startHarness({ EARSHOT_DIGEST_TICK_SECONDS: "0.05" });
  owner = await h.newActor();
  projectId = await createProject(h, owner);
}, 60_000);
afterAll(async () => h?.stop());

const mailFor = (to: string, subject: string) => h.mail.find((m) => m.to.includes(to) && m.raw.includes(subject));
/** The path of a link of the instance's own (emails carry the public URL; the tests call the harness's address). */
const local = (link: string) => {
  const u = new URL(link);
  return `${u.pathname}${u.search}`;
};
const unsubscribeLinkOf = async (raw: string) => local(((await simpleParser(raw)).headers.get("list") as { unsubscribe: { url: string } }).unsubscribe.url);
const alertActive = async (alertId: string) => ((await h.call("get_alert", { alertId }, owner.key)).body.data as { active: boolean }).active;

/** A mail client's one-click POST (RFC 8058): the form body, no cookies, no Origin, redirects not followed. */
const oneClick = (path: string, body = "List-Unsubscribe=One-Click") =>
  fetch(`${h.url}${path}`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });

describe("alerts through the whole system", () => {
  it("emails the owner an instant alert an editor set up, and a digest sent by hand", async () => {
    const editor = await h.addMember(owner, projectId, "editor");
    const list = await h.call("list_alerts", { projectId }, owner.key);
    expect((list.body.data as Array<{ name: string }>).map((a) => a.name)).toEqual(["Daily Digest"]);
    dailyDigestId = (list.body.data as Array<{ id: string }>)[0]!.id;

    const rule = await h.call("create_alert", { projectId, name: "Everything, now", instant: true }, editor.key);
    expect(rule.status).toBe(201);
    ruleId = (rule.body.data as { id: string }).id;
    const { keyword } = await keywordWithMentions(h, owner, projectId, 1);
    await waitFor(() => mailFor(owner.email, "Everything, now for ") !== undefined, 10_000);
    instantRaw = mailFor(owner.email, "Everything, now for ")!.raw;
    const instant = await simpleParser(instantRaw);
    expect(instant.to).toMatchObject({ value: [{ address: owner.email }] });
    expect(instant.text).toContain(`${keyword.value}: 1`);
    expect(instant.html).toContain("Open on");
    expect(h.mail.some((m) => m.to.includes(editor.email) && m.raw.includes("Everything, now"))).toBe(false);

    const res = await h.digest.sendDigest({ projectId, localDate: "" });
    expect(res.emailsSent).toBe(1);
    await waitFor(() => mailFor(owner.email, "[manual send] Daily Digest for ") !== undefined, 10_000);
  });

  it("every link of every email template opens a page that answers 200 once signed in", async () => {
    const invited = `invited-${owner.userId.toLowerCase()}@example.com`;
    expect((await h.call("invite_project_member", { projectId, email: invited, role: "viewer" }, owner.key)).status).toBe(201);
    await waitFor(() => mailFor(invited, "invited to") !== undefined, 10_000);
    const webhook = await createWebhook(h, owner, projectId);
    const sent = [mailFor(owner.email, "Everything, now for ")!, mailFor(owner.email, "[manual send] Daily Digest for ")!, mailFor(invited, "invited to")!];
    const links = new Set<string>();
    for (const m of sent) {
      const mail = await simpleParser(m.raw);
      const text = `${mail.text ?? ""}\n${String(mail.html)}\n${m.raw.match(/^List-Unsubscribe: <([^>]+)>/m)?.[1] ?? ""}`;
      for (const [url] of text.matchAll(/https?:\/\/[^\s"<>]+/g)) links.add(url.replace(/&amp;/g, "&"));
    }
    // The deactivation and failing feed mails need days of failures: their templates are rendered with real ids.
    const deactivation = endpointDeactivatedEmail({ _id: webhook.id, projectId, url: "https://receiver.example/hook", format: "standard" }, new Date(), h.url);
    const feed = feedFailingEmail({ name: "News", url: "https://news.example/feed.xml", projectId, lastError: undefined, failingSince: new Date() }, h.url);
    for (const text of [deactivation.text, feed.text]) for (const [url] of text.matchAll(/https?:\/\/[^\s"<>]+/g)) links.add(url);

    const ours = [...links].filter((l) => !/reddit|youtube|twitter|x\.com|linkedin|example\.(com|org)\/post/.test(l) && /\/(app|invitations)\//.test(l));
    // The inbox, a mention, the alert (instant and digest), their unsubscribe links, the invitation, the endpoint.
    expect(ours.filter((l) => l.includes("/app/unsubscribe/"))).toHaveLength(2);
    expect(ours.some((l) => l.includes(`/alerts/${ruleId}`)) && ours.some((l) => l.includes(`/alerts/${dailyDigestId}`))).toBe(true);
    expect(ours.some((l) => /\/mentions\/men_/.test(l)) && ours.some((l) => l.includes(`/webhooks/${webhook.id}`)) && ours.some((l) => l.includes("/invitations/"))).toBe(true);
    expect(ours.some((l) => l.endsWith(`/projects/${projectId}/sources`))).toBe(true);

    const browser = new WebClient(h);
    expect((await browser.signIn(owner.email)).res.status).toBe(303);
    for (const link of ours) {
      let path = local(link);
      let res = (await browser.get(path)).res;
      for (let hops = 0; res.status === 303 && hops < 3; hops++) res = (await browser.get((path = res.headers.get("location")!))).res;
      expect(`${res.status} ${path}`).toBe(`200 ${path}`);
    }
    // Opening the links changed nothing: both alerts are still on.
    expect(await alertActive(ruleId)).toBe(true);
    expect(await alertActive(dailyDigestId)).toBe(true);
  });
});

describe("one-click unsubscribe (RFC 8058)", () => {
  it("a mail client's POST turns that alert off without a sign-in, and again is the same answer", async () => {
    const link = await unsubscribeLinkOf(instantRaw);
    const first = await oneClick(link);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("Everything, now");
    expect(await alertActive(ruleId)).toBe(false);
    // Only that alert: the project's Daily Digest stays on.
    expect(await alertActive(dailyDigestId)).toBe(true);
    const again = await oneClick(link, "");
    expect(again.status).toBe(200);
    expect(await alertActive(ruleId)).toBe(false);
  });

  it("the page offers the undo; after it the link turns nothing off again", async () => {
    const link = await unsubscribeLinkOf(instantRaw);
    const page = await fetch(`${h.url}${link}`);
    expect(await page.text()).toContain(`action="${link}/undo"`);
    const undo = await oneClick(`${link}/undo`, "");
    expect(undo.status).toBe(200);
    expect(await undo.text()).toContain("on again");
    expect(await alertActive(ruleId)).toBe(true);
    const spent = await oneClick(link);
    expect(spent.status).toBe(410);
    expect(await alertActive(ruleId)).toBe(true);
  });

  it("opening the link only asks to confirm; the confirmation turns it off", async () => {
    const link = await unsubscribeLinkOf(mailFor(owner.email, "[manual send] Daily Digest for ")!.raw);
    const page = await fetch(`${h.url}${link}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`<form method="post" action="${link}">`);
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self'");
    expect(await alertActive(dailyDigestId)).toBe(true);
    expect((await oneClick(link, "")).status).toBe(200);
    expect(await alertActive(dailyDigestId)).toBe(false);
    expect((await oneClick(`${link}/undo`, "")).status).toBe(200);
  });

  it("two clicks at once both answer that it is off; once the alert is on again by other means, the link is spent", async () => {
    const before = h.mail.length;
    expect((await h.digest.sendDigest({ projectId, localDate: "" })).emailsSent).toBe(1);
    await waitFor(() => h.mail.slice(before).some((m) => m.raw.includes("[manual send] Daily Digest for ")), 10_000);
    const link = await unsubscribeLinkOf(h.mail.slice(before).find((m) => m.raw.includes("[manual send] Daily Digest for "))!.raw);
    const clicks = await Promise.all([oneClick(link), oneClick(link)]);
    expect(clicks.map((r) => r.status)).toEqual([200, 200]);
    expect(await alertActive(dailyDigestId)).toBe(false);
    expect((await h.call("update_alert", { alertId: dailyDigestId, active: true }, owner.key)).status).toBe(200);
    expect((await fetch(`${h.url}${link}`)).status).toBe(410);
    expect((await oneClick(link)).status).toBe(410);
    expect(await alertActive(dailyDigestId)).toBe(true);
  });

  it("a link changed to name another alert, or not signed by this instance, is 404 and changes nothing", async () => {
    const link = await unsubscribeLinkOf(instantRaw);
    const [prefix, body, mac] = decodeURIComponent(link.slice("/app/unsubscribe/".length)).split(".");
    const claims = JSON.parse(Buffer.from(body!, "base64url").toString()) as Record<string, string>;
    const other = Buffer.from(JSON.stringify({ ...claims, a: dailyDigestId })).toString("base64url");
    for (const token of [`${prefix}.${other}.${mac}`, `${prefix}.${body}.${"A".repeat(43)}`, "not-a-token", "u1.%00.x"]) {
      const res = await oneClick(`/app/unsubscribe/${encodeURIComponent(token)}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("text/html");
    }
    expect(await alertActive(dailyDigestId)).toBe(true);
    expect(await alertActive(ruleId)).toBe(true);
  });
});
