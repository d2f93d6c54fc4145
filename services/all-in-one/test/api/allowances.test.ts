import { type Harness, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

describe("plan allowances and invitation limits", () => {
  it("answers 402 usage_limited naming the limit once the workspace has its 10 projects, and counts archived ones out", async () => {
    const owner = await h.newActor();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await h.call("create_project", { name: `P${i}` }, owner.key);
      expect(res.status).toBe(201);
      ids.push((res.body.data as { id: string }).id);
    }
    const over = await h.call("create_project", { name: "One too many" }, owner.key);
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ code: "usage_limited", limit: "projects", allowance: 10 });
    const usage = await h.call("get_usage", {}, owner.key);
    expect(usage.body.data).toMatchObject({ limits: { projects: { allowance: 10, used: 10 } } });
    await h.call("archive_project", { projectId: ids[0] }, owner.key);
    expect((await h.call("create_project", { name: "Fits again" }, owner.key)).status).toBe(201);
  });

  it("answers 402 for the invitation that would need an 11th seat, and counts a re-invited person once", async () => {
    const owner = await h.newActor();
    const a = ((await h.call("create_project", { name: "A" }, owner.key)).body.data as { id: string }).id;
    const b = ((await h.call("create_project", { name: "B" }, owner.key)).body.data as { id: string }).id;
    for (let i = 0; i < 10; i++) expect((await h.call("invite_project_member", { projectId: a, email: `seat${i}@example.com` }, owner.key)).status).toBe(201);
    // The same person invited to a second project takes no new seat.
    expect((await h.call("invite_project_member", { projectId: b, email: "seat0@example.com" }, owner.key)).status).toBe(201);
    const over = await h.call("invite_project_member", { projectId: b, email: "seat10@example.com" }, owner.key);
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ code: "usage_limited", limit: "seats" });
  });

  it("answers 429 with Retry-After after 20 invitation emails in an hour", async () => {
    const owner = await h.newActor();
    const projectId = ((await h.call("create_project", { name: "Busy" }, owner.key)).body.data as { id: string }).id;
    for (let i = 0; i < 20; i++) {
      const invited = await h.call("invite_project_member", { projectId, email: "again@example.com" }, owner.key);
      expect(invited.status).toBe(201);
      const revoked = await h.call("remove_project_member", { projectId, memberId: (invited.body.data as { id: string }).id, memberType: "invite" }, owner.key);
      expect(revoked.status).toBe(200);
    }
    const res = await h.call("invite_project_member", { projectId, email: "again@example.com" }, owner.key);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("rate_limited");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(3000);
  });

  it("shows pending invitations to the owner only", async () => {
    const owner = await h.newActor();
    const projectId = ((await h.call("create_project", { name: "Team" }, owner.key)).body.data as { id: string }).id;
    const viewer = await h.addMember(owner, projectId, "viewer");
    await h.call("invite_project_member", { projectId, email: "pending@example.com" }, owner.key);
    const asOwner = (await h.call("list_project_members", { projectId }, owner.key)).body.data as Array<{ memberType: string; role: string }>;
    const asViewer = (await h.call("list_project_members", { projectId }, viewer.key)).body.data as Array<{ memberType: string }>;
    expect(asOwner.map((m) => m.memberType)).toEqual(["member", "member", "invite"]);
    expect(asOwner[0]?.role).toBe("owner");
    expect(asViewer.map((m) => m.memberType)).toEqual(["member", "member"]);
  });

  it("keeps the share URL reserved while the public dashboard is disabled", async () => {
    const owner = await h.newActor();
    const projectId = ((await h.call("create_project", { name: "Public" }, owner.key)).body.data as { id: string }).id;
    const on = await h.call("set_public_dashboard", { projectId, enabled: true, description: "Our mentions" }, owner.key);
    const url = (on.body.data as { publicDashboard: { shareUrl: string } }).publicDashboard.shareUrl;
    const off = await h.call("set_public_dashboard", { projectId, enabled: false }, owner.key);
    expect((off.body.data as { publicDashboard: { shareUrl: string; enabled: boolean } }).publicDashboard).toMatchObject({ enabled: false, shareUrl: url });
    const again = await h.call("set_public_dashboard", { projectId, enabled: true }, owner.key);
    expect((again.body.data as { publicDashboard: { shareUrl: string } }).publicDashboard.shareUrl).toBe(url);
  });

  it("pages projects with opaque cursors, newest first, without archived ones", async () => {
    const owner = await h.newActor();
    for (const name of ["one", "two", "three"]) await h.call("create_project", { name }, owner.key);
    const first = await h.call("list_projects", { limit: 2 }, owner.key);
    expect((first.body.data as Array<{ name: string }>).map((p) => p.name)).toEqual(["three", "two"]);
    const second = await h.call("list_projects", { limit: 2, cursor: (first.body.meta as { nextCursor: string }).nextCursor }, owner.key);
    expect((second.body.data as Array<{ name: string }>).map((p) => p.name)).toEqual(["one"]);
    expect((second.body.meta as { nextCursor: null }).nextCursor).toBeNull();
  });
});
