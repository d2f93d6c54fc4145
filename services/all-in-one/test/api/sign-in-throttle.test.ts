import { createHash, randomBytes } from "node:crypto";
import { ManualClock } from "@earshot/platform";
import { type Actor, type Harness, startHarness } from "./harness";

// Brute force against the two password pages: the OAuth sign-in page and the invitation page. The clock
// is the harness's, so lock-outs pass by moving it, never by sleeping.

const PASSWORD = "correct horse battery";
const WRONG = "not the password";
const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");

const clock = new ManualClock(new Date());
let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, clock);
}, 60_000);
afterAll(async () => {
  await h?.stop();
});
// Each test starts with no failures remembered (they are forgotten after an hour without one).
beforeEach(() => clock.advance(2 * 3600_000));

/** Opens the OAuth sign-in page for a fresh authorization request; returns what its form posts. */
const openSignIn = async () => {
  const registered = await fetch(`${h.url}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "brute", redirect_uris: ["http://localhost:53682/cb"], token_endpoint_auth_method: "none" }),
  });
  const { client_id } = (await registered.json()) as { client_id: string };
  const authorize = new URL(`${h.url}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: "http://localhost:53682/cb",
    code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
    code_challenge_method: "S256",
    scope: "mcp",
    resource: `${h.url}/mcp`,
  }).toString();
  const redirected = await fetch(authorize, { redirect: "manual" });
  const page = await fetch(new URL(redirected.headers.get("location") as string, h.url), { redirect: "manual" });
  const html = await page.text();
  const cookie = cookiesOf(page);
  return (email: string, password: string) =>
    fetch(`${h.url}/oauth/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
      body: new URLSearchParams({ csrf: field(html, "csrf"), request: field(html, "request"), email, password }).toString(),
    });
};

/** Opens an invitation for `invitee` to a new project; returns the project and what its sign-in form posts. */
const openInvitation = async (owner: Actor, invitee: Actor) => {
  const projectId = ((await h.call("create_project", { name: "Guarded" }, owner.key)).body.data as { id: string }).id;
  await h.call("invite_project_member", { projectId, email: invitee.email }, owner.key);
  const token = h.inviteToken(invitee.email)!;
  const page = await fetch(`${h.url}/invitations/${token}`);
  const html = await page.text();
  const cookie = cookiesOf(page);
  const submit = (password: string) =>
    fetch(`${h.url}/invitations/${token}`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
      body: new URLSearchParams({ csrf: field(html, "csrf"), action: "signin", password }).toString(),
    });
  return { projectId, submit };
};

const statusesOf = async (attempts: number, attempt: () => Promise<Response>) => {
  const statuses: number[] = [];
  for (let i = 0; i < attempts; i++) statuses.push((await attempt()).status);
  return statuses;
};

describe("brute force on the OAuth sign-in page", () => {
  it("does not sign in with the right password after 200 wrong ones until the lock-out passes", async () => {
    const person = await h.newActor();
    const signIn = await openSignIn();
    const statuses = await statusesOf(200, () => signIn(person.email, WRONG));
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    const locked = await signIn(person.email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("1");
    expect(await locked.text()).toContain("Too many sign-in attempts. Try again in 1 second.");
    clock.advance(1000);
    const signedIn = await signIn(person.email, PASSWORD);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toMatch(/^\/oauth\/consent\?request=/);
  });

  it("locks one address that tries passwords on many accounts, even for an account it never tried", async () => {
    const person = await h.newActor();
    const signIn = await openSignIn();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await signIn(`nobody${i}@example.com`, WRONG)).status);
    expect(new Set(statuses)).toEqual(new Set([401]));
    const locked = await signIn(person.email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(Number(locked.headers.get("retry-after")) * 1000);
    expect((await signIn(person.email, PASSWORD)).status).toBe(303);
  });
});

describe("brute force on the invitation page", () => {
  it("does not accept with the right password after 200 wrong ones until the lock-out passes", async () => {
    const owner = await h.newActor();
    const invitee = await h.newActor();
    const { projectId, submit } = await openInvitation(owner, invitee);
    const statuses = await statusesOf(200, () => submit(WRONG));
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    const locked = await submit(PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("1");
    expect(await locked.text()).toContain("Too many sign-in attempts. Try again in 1 second.");
    const stillPending = await h.call("list_project_members", { projectId }, owner.key);
    expect(stillPending.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ email: invitee.email, memberType: "invite" })]));
    clock.advance(1000);
    const accepted = await submit(PASSWORD);
    expect(accepted.status).toBe(200);
    expect(await accepted.text()).toContain("you are now viewer");
  });
});
