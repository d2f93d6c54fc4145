import { ManualClock } from "@earshot/platform";
import { type Actor, type Harness, startHarness } from "./harness";
import { openOAuthSignIn } from "./oauth-client";

// Brute force against the two password pages: the OAuth sign-in page and the invitation page. The clock
// is the harness's, so waits pass by moving it, never by sleeping. Loopback proxies are trusted, so a
// request says which client address it comes from with X-Forwarded-For.

const PASSWORD = "correct horse battery";
const WRONG = "not the password";
const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");

const clock = new ManualClock(new Date());
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ EARSHOT_TRUST_PROXY: "loopback" }, clock);
}, 60_000);
afterAll(async () => {
  await h?.stop();
});
const GUESSER = "203.0.113.9";
const OWNER_ADDRESS = "198.51.100.4";
// Each test starts with no failures remembered (they are forgotten after an hour without one).
beforeEach(() => clock.advance(2 * 3600_000));

/** Opens the OAuth sign-in page for a fresh authorization request; returns what its form posts (from the guesser by default). */
const openSignIn = async () => {
  const post = await openOAuthSignIn(h, "brute");
  return (email: string, password: string, from = GUESSER) => post(email, password, from);
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
  it("refuses 100 wrong passwords for one email from one address with 429 and Retry-After, and signs the owner in from another address", async () => {
    const person = await h.newActor();
    const signIn = await openSignIn();
    const statuses = await statusesOf(100, () => signIn(person.email, WRONG));
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    const refused = await signIn(person.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.text()).toContain("Too many sign-in attempts. Try again in 1 second.");
    const signedIn = await signIn(person.email, PASSWORD, OWNER_ADDRESS);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toMatch(/^\/oauth\/consent\?request=/);
  });

  it("lets the guessing address try again once its wait passes", async () => {
    const person = await h.newActor();
    const signIn = await openSignIn();
    await statusesOf(6, () => signIn(person.email, WRONG));
    expect((await signIn(person.email, PASSWORD)).status).toBe(429);
    clock.advance(1000);
    expect((await signIn(person.email, PASSWORD)).status).toBe(303);
  });

  it("refuses one address that tries passwords on many emails, even for an email it never tried", async () => {
    const person = await h.newActor();
    const signIn = await openSignIn();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await signIn(`nobody${i}@example.com`, WRONG)).status);
    expect(new Set(statuses)).toEqual(new Set([401]));
    const refused = await signIn(person.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await signIn(person.email, PASSWORD, OWNER_ADDRESS)).status).toBe(303);
    clock.advance(Number(refused.headers.get("retry-after")) * 1000);
    expect((await signIn(person.email, PASSWORD)).status).toBe(303);
  });

  it("answers a known and an unknown email the same, status, Retry-After and page, throttled or not", async () => {
    const person = await h.newActor();
    const unknown = `nobody-${person.email}`;
    const signIn = await openSignIn();
    const answerOf = async (res: Response) => ({ status: res.status, retryAfter: res.headers.get("retry-after"), page: await res.text() });
    const fresh = [await answerOf(await signIn(person.email, WRONG)), await answerOf(await signIn(unknown, WRONG))];
    expect(fresh[0]).toMatchObject({ status: 401, retryAfter: null });
    expect(fresh[1]).toEqual(fresh[0]);
    for (let i = 0; i < 4; i++) await Promise.all([signIn(person.email, WRONG), signIn(unknown, WRONG)]);
    const throttled = [await answerOf(await signIn(person.email, WRONG)), await answerOf(await signIn(unknown, WRONG))];
    expect(throttled[0]).toMatchObject({ status: 429, retryAfter: "1" });
    expect(throttled[1]).toEqual(throttled[0]);
  });
});

describe("brute force on the invitation page", () => {
  it("does not accept with the right password after 200 wrong ones from one address until the wait passes", async () => {
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
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("location")).toBe(`/app/projects/${projectId}`);
  });
});
