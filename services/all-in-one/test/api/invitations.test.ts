import { ManualClock } from "@earshot/platform";
import { type Harness, startHarness } from "./harness";

// The whole invitation path a person takes: a real SMTP server receives the email, the link opens the
// acceptance page, the form creates the user, and the membership exists with the invited role.

const formField = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1];

const openInvitation = async (h: Harness, token: string) => {
  const res = await fetch(`${h.url}/invitations/${token}`);
  const html = await res.text();
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return { res, html, cookie, csrf: formField(html, "csrf") ?? "" };
};

const submit = (h: Harness, token: string, cookie: string, fields: Record<string, string>) =>
  fetch(`${h.url}/invitations/${token}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });

describe("invitations", () => {
  const clock = new ManualClock(new Date());
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, clock);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("emails a link whose page lets a new person create an account and join with the invited role", async () => {
    const owner = await h.newActor();
    const project = await h.call("create_project", { name: "Launch week" }, owner.key);
    const projectId = (project.body.data as { id: string }).id;
    const invited = await h.call("invite_project_member", { projectId, email: "newcomer@example.com", role: "editor" }, owner.key);
    expect(invited.status).toBe(201);
    const mail = h.mail.find((m) => m.to.includes("newcomer@example.com"));
    expect(mail?.raw).toContain("Launch week");
    const token = h.inviteToken("newcomer@example.com")!;
    const page = await openInvitation(h, token);
    expect(page.res.status).toBe(200);
    expect(page.html).toContain("Launch week");
    expect(page.html).toContain("newcomer@example.com");
    const accepted = await submit(h, token, page.cookie, { csrf: page.csrf, action: "signup", name: "Nia Newcomer", password: "a long password" });
    // The new member lands signed in to the web app, in the project they joined.
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("location")).toBe(`/app/projects/${projectId}`);
    const session = accepted.headers.getSetCookie().find((c) => c.startsWith("earshot_app="))!;
    expect(session).toMatch(/HttpOnly/);
    const projects = await fetch(`${h.url}/app`, { headers: { Cookie: session.split(";")[0]! }, redirect: "manual" });
    expect(projects.status).toBe(200);
    expect(await projects.text()).toContain("You are editor");
    const members = await h.call("list_project_members", { projectId }, owner.key);
    expect(members.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: "newcomer@example.com", role: "editor", memberType: "member", name: "Nia Newcomer" })]),
    );
    const again = await openInvitation(h, token);
    expect(again.res.status).toBe(410);
  });

  it("lets an existing user sign in to accept", async () => {
    const owner = await h.newActor();
    const existing = await h.newActor();
    const projectId = ((await h.call("create_project", { name: "Signals" }, owner.key)).body.data as { id: string }).id;
    await h.call("invite_project_member", { projectId, email: existing.email }, owner.key);
    const token = h.inviteToken(existing.email)!;
    const page = await openInvitation(h, token);
    const wrong = await submit(h, token, page.cookie, { csrf: page.csrf, action: "signin", password: "not the password" });
    expect(wrong.status).toBe(401);
    const right = await submit(h, token, page.cookie, { csrf: page.csrf, action: "signin", password: "correct horse battery" });
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe(`/app/projects/${projectId}`);
    const got = await h.call("get_project", { projectId }, existing.key);
    expect(got.body.data).toMatchObject({ role: "viewer" });
  });

  it("refuses a form posted without the page's CSRF cookie", async () => {
    const owner = await h.newActor();
    const projectId = ((await h.call("create_project", { name: "Guarded" }, owner.key)).body.data as { id: string }).id;
    await h.call("invite_project_member", { projectId, email: "guarded@example.com" }, owner.key);
    const token = h.inviteToken("guarded@example.com")!;
    const page = await openInvitation(h, token);
    const forged = await submit(h, token, "", { csrf: page.csrf, action: "signup", name: "Mallory", password: "a long password" });
    expect(forged.status).toBe(403);
  });

  it("answers an unknown invitation link with a 404 page", async () => {
    const res = await fetch(`${h.url}/invitations/not-a-real-token-at-all-xxxxxxxx`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("text/html");
  });

  it("expires an invitation after 7 days", async () => {
    const owner = await h.newActor();
    const projectId = ((await h.call("create_project", { name: "Later" }, owner.key)).body.data as { id: string }).id;
    await h.call("invite_project_member", { projectId, email: "late@example.com" }, owner.key);
    const token = h.inviteToken("late@example.com")!;
    clock.advance(7 * 24 * 3600 * 1000 + 60_000);
    const page = await openInvitation(h, token);
    expect(page.res.status).toBe(410);
    expect(page.html).toContain("expired");
    const members = await h.call("list_project_members", { projectId }, owner.key);
    expect(members.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ email: "late@example.com", status: "expired" })]));
  });
});
