import { Scheduler } from "./scheduler";
import { pollerId } from "../store";
import { openIntegrationWorld, type IntegrationWorld, refusalOf } from "../test-support";
import { completeLinkedinAuthorization } from "./linkedin-callback";
import { getLinkedinConnectUrl } from "./linkedin-connect";
import { getLinkedinIntegration } from "./linkedin-get";
import { selectLinkedinPage } from "./linkedin-select";
import { syncLinkedin } from "./linkedin-sync";
import { syncsOn } from "./linkedin-sync-allowance";

// sync_linkedin over the LinkedIn simulator: what it emits, how it is metered, and what LinkedIn's own
// refusals become.

const REDIRECT = "http://127.0.0.1:9/integrations/linkedin/callback";
const ACME = "urn:li:organization:1001";

let w: IntegrationWorld;
beforeEach(async () => {
  w = await openIntegrationWorld({ platforms: ["linkedin"] });
});
afterEach(() => w.close());

const owner = (projectId: string, linkedinSyncsPerDay = 20) => w.caller({ [projectId]: "owner" }, { allowances: { linkedinSyncsPerDay } });

/** The owner goes through LinkedIn's authorization as member-a (who administers Acme Corp). */
const authorize = async (projectId: string) => {
  const { url } = await getLinkedinConnectUrl(w.deps, owner(projectId), { projectId, redirectUri: REDIRECT });
  const target = new URL(url);
  const form = new URLSearchParams(target.searchParams);
  form.set("member", "member-a");
  form.set("action", "allow");
  const decided = await fetch(`${target.origin}${target.pathname}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
  const back = new URL(decided.headers.get("location") ?? "").searchParams;
  await completeLinkedinAuthorization(w.deps, { state: back.get("state") ?? "", code: back.get("code") ?? "", error: "", errorDescription: "" });
};

/** A project with a keyword and its LinkedIn Page (Acme Corp, administered by member-a) connected. */
const connectedProject = async (keyword = "zephyr widgets") => {
  const projectId = await w.newProject();
  await w.addKeyword(projectId, keyword);
  await authorize(projectId);
  await selectLinkedinPage(w.deps, owner(projectId), { projectId, organizationUrn: ACME });
  return projectId;
};

const ofType = async (type: string) => (await w.events()).filter((e) => e.type === type);

it("emits the Page's new mentions as post.collected, and synced with how many", async () => {
  const projectId = await connectedProject();
  w.sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme Corp ships zephyr widgets today", createdAtMs: w.clock.now().getTime() - 60_000 });
  const first = await syncLinkedin(w.deps, owner(projectId), projectId);
  expect(first.postsFound).toBe(1);
  expect(first.integration).toMatchObject({ status: "connected", lastSyncAt: w.clock.now(), syncsPerDay: 20, syncsLeftToday: 19 });
  const posts = await ofType("post.collected");
  expect(posts).toEqual([expect.objectContaining({ key: projectId, data: expect.objectContaining({ projectId, source: "linkedin", text: expect.stringContaining("zephyr widgets") }) })]);
  // Found once: a second sync finds nothing new.
  expect((await syncLinkedin(w.deps, owner(projectId), projectId)).postsFound).toBe(0);
  expect((await ofType("integration.linkedin.synced")).map((e) => (e.data as { postsFound: number }).postsFound)).toEqual([1, 0]);
});

it("answers 402 usage_limited linkedin_syncs once the day's allowance is spent, and counts again the next UTC day", async () => {
  const projectId = await connectedProject();
  await syncLinkedin(w.deps, owner(projectId, 2), projectId);
  await syncLinkedin(w.deps, owner(projectId, 2), projectId);
  const refusal = await refusalOf(syncLinkedin(w.deps, owner(projectId, 2), projectId));
  expect(refusal).toMatchObject({ code: "usage_limited", status: 402, details: { limit: "linkedin_syncs", allowance: 2 } });
  expect(await syncsOn(w.deps, "wsp_1", w.clock.now())).toBe(2);
  w.clock.advance(24 * 3600_000);
  await expect(syncLinkedin(w.deps, owner(projectId, 2), projectId)).resolves.toMatchObject({ integration: { syncsLeftToday: 1 } });
});

it("never lets racing syncs exceed the allowance, on two replicas", async () => {
  // One sync per project (two syncs of one project meet its poller's lease instead), six at once.
  const projects = await Promise.all(["alpha", "beta", "gamma", "delta", "epsilon", "zeta"].map((k) => connectedProject(k)));
  const replica = w.replica();
  const outcomes = await Promise.allSettled(projects.map((p, i) => syncLinkedin(i % 2 === 0 ? w.deps : replica, owner(p, 3), p)));
  expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(3);
  const reasons = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as { code: string }).code] : []));
  expect(reasons).toEqual(["usage_limited", "usage_limited", "usage_limited"]);
  expect(await syncsOn(w.deps, "wsp_1", w.clock.now())).toBe(3);
});

it("passes LinkedIn's 429 on as rate_limited with its Retry-After, without counting the sync", async () => {
  const projectId = await connectedProject();
  w.sims.world.fail("linkedin", { status: 429, retryAfterSeconds: 120 });
  const refusal = await refusalOf(syncLinkedin(w.deps, owner(projectId), projectId));
  expect(refusal).toMatchObject({ code: "rate_limited", status: 429, details: { retryAfter: 120 } });
  expect(await syncsOn(w.deps, "wsp_1", w.clock.now())).toBe(0);
  expect(await ofType("integration.linkedin.synced")).toEqual([]);
  expect((await getLinkedinIntegration(w.deps, owner(projectId), projectId)).syncsLeftToday).toBe(20);
});

it("answers 409 when no Page is connected, without counting", async () => {
  const projectId = await w.newProject();
  await expect(syncLinkedin(w.deps, owner(projectId), projectId)).rejects.toMatchObject({ code: "conflict" });
  await expect(syncLinkedin(w.deps, w.caller({ [projectId]: "editor" }), projectId)).rejects.toMatchObject({ code: "forbidden" });
  expect(await syncsOn(w.deps, "wsp_1", w.clock.now())).toBe(0);
});

describe("the member's token over time", () => {
  const DAY_MS = 24 * 3600_000;
  const stored = async (projectId: string) => (await w.deps.collections.linkedin.findById(projectId))!;
  const refreshes = () => w.sims.world.requests("linkedin").filter((r) => r.path.endsWith("/oauth/v2/accessToken") && r.body.includes("grant_type=refresh_token"));
  const reasons = async () => (await ofType("integration.linkedin.disconnected")).map((e) => (e.data as { reason: string }).reason);

  it("refreshes a token expiring within a day before syncing, stores it sealed, and keeps syncing past the first token's 60 days", async () => {
    const projectId = await connectedProject();
    const first = await stored(projectId);
    w.clock.set(new Date(first.tokenExpiresAt!.getTime() - 12 * 3600_000));
    await syncLinkedin(w.deps, owner(projectId), projectId);
    expect(refreshes()).toHaveLength(1);
    const renewed = await stored(projectId);
    expect(renewed.accessToken).not.toEqual(first.accessToken);
    expect(renewed.accessToken).toMatch(/^v1\./);
    expect(renewed.tokenExpiresAt).toEqual(new Date(w.clock.now().getTime() + 5_184_000_000));
    w.clock.advance(DAY_MS);
    w.sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme Corp ships zephyr widgets again", createdAtMs: w.clock.now().getTime() - 60_000 });
    expect((await syncLinkedin(w.deps, owner(projectId), projectId)).postsFound).toBe(1);
    expect(refreshes()).toHaveLength(1);
  });

  it("asks the owner to connect again when LinkedIn answers 401: status reauthorization_required, poller stopped, sync 409", async () => {
    const projectId = await connectedProject();
    // The member revoked Earshot in LinkedIn: the stored token is one LinkedIn no longer knows.
    await w.deps.collections.linkedin.updateOne({ _id: projectId }, { $set: { accessToken: w.deps.sealer.seal("AQV-revoked") } });
    await new Scheduler(w.deps).tick();
    const poller = await w.deps.collections.pollers.findById(pollerId(projectId, "linkedin"));
    expect(poller).toMatchObject({ enabled: false, lastError: { status: 401 } });
    expect(poller).not.toHaveProperty("leaseOwner");
    const view = await getLinkedinIntegration(w.deps, owner(projectId), projectId);
    expect(view).toMatchObject({ status: "reauthorization_required", page: { organizationUrn: ACME } });
    expect(view).not.toHaveProperty("tokenExpiresAt");
    expect(await stored(projectId)).not.toHaveProperty("accessToken");
    expect(await reasons()).toEqual(["reauthorization_required"]);
    const refusal = await refusalOf(syncLinkedin(w.deps, owner(projectId), projectId));
    expect(refusal).toMatchObject({ code: "conflict", status: 409, message: expect.stringContaining("connect the Page again") });
    expect(await syncsOn(w.deps, "wsp_1", w.clock.now())).toBe(0);
  });

  it("answers a sync that meets LinkedIn's 401 with 409 to connect again, without counting it", async () => {
    const projectId = await connectedProject();
    await w.deps.collections.linkedin.updateOne({ _id: projectId }, { $set: { accessToken: w.deps.sealer.seal("AQV-revoked") } });
    const refusal = await refusalOf(syncLinkedin(w.deps, owner(projectId), projectId));
    expect(refusal).toMatchObject({ code: "conflict", message: expect.stringContaining("connect the Page again") });
    expect(await getLinkedinIntegration(w.deps, owner(projectId), projectId)).toMatchObject({ status: "reauthorization_required" });
    expect(await syncsOn(w.deps, "wsp_1", w.clock.now())).toBe(0);
  });

  it("asks the owner to connect again once LinkedIn refuses the refresh token, and resumes on the same Page when they do", async () => {
    const projectId = await connectedProject();
    // A year and a day on, the refresh token has expired too: LinkedIn answers invalid_grant.
    w.clock.advance(366 * DAY_MS);
    const refusal = await refusalOf(syncLinkedin(w.deps, owner(projectId), projectId));
    expect(refusal).toMatchObject({ code: "conflict", message: expect.stringContaining("connect the Page again") });
    expect(refreshes()).toHaveLength(1);
    expect(await getLinkedinIntegration(w.deps, owner(projectId), projectId)).toMatchObject({ status: "reauthorization_required" });
    expect((await w.deps.collections.pollers.findById(pollerId(projectId, "linkedin")))?.enabled).toBe(false);
    await authorize(projectId);
    expect(await getLinkedinIntegration(w.deps, owner(projectId), projectId)).toMatchObject({ status: "connected", page: { organizationUrn: ACME } });
    expect((await w.deps.collections.pollers.findById(pollerId(projectId, "linkedin")))?.enabled).toBe(true);
    expect((await ofType("integration.linkedin.connected")).length).toBe(2);
    await expect(syncLinkedin(w.deps, owner(projectId), projectId)).resolves.toMatchObject({ integration: { status: "connected" } });
  });
});
