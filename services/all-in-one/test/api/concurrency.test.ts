import { type Harness, startHarness } from "./harness";
import { createProject } from "./world";

// Requests that race on one workspace, project, member or invitation: every answer is a success or a
// 4xx naming the rule (never a 5xx), and plan limits and de-duplication hold as they do one at a time.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const statusesOf = (responses: Array<{ status: number }>) => responses.map((r) => r.status).sort((a, b) => a - b);
const countOf = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe("concurrent changes to one member or invitation", () => {
  it("answers 200 or 409, never 5xx, when owners change one member's role at once", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const member = await h.addMember(owner, projectId, "viewer");
    const members = (await h.call("list_project_members", { projectId }, owner.key)).body.data as Array<{ id: string; userId: string }>;
    const memberId = members.find((m) => m.userId === member.userId)?.id as string;
    const roles = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? "editor" : "viewer"));
    const responses = await Promise.all(roles.map((role) => h.call("update_project_member", { projectId, memberId, role }, owner.key)));
    const statuses = statusesOf(responses);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(countOf(statuses, 200)).toBeGreaterThan(0);
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.code).toBe("conflict");
  });

  it("removes a member once when ten removals race: one 200, the rest 409 conflict (or 404 when they came after it)", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const member = await h.addMember(owner, projectId, "editor");
    const members = (await h.call("list_project_members", { projectId }, owner.key)).body.data as Array<{ id: string; userId: string }>;
    const memberId = members.find((m) => m.userId === member.userId)?.id as string;
    const responses = await Promise.all(Array.from({ length: 10 }, () => h.call("remove_project_member", { projectId, memberId }, owner.key)));
    const statuses = statusesOf(responses);
    expect(countOf(statuses, 200)).toBe(1);
    expect(countOf(statuses, 409) + countOf(statuses, 404)).toBe(9);
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.code).toBe("conflict");
    const after = (await h.call("list_project_members", { projectId }, owner.key)).body.data as Array<{ userId: string }>;
    expect(after.map((m) => m.userId)).toEqual([owner.userId]);
  });

  it("accepts an invitation once when ten accepts race: one joins, the rest conflict", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const invitee = await h.newActor();
    expect((await h.call("invite_project_member", { projectId, email: invitee.email }, owner.key)).status).toBe(201);
    const token = h.inviteToken(invitee.email) as string;
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        h.project.acceptInvitation({ token, userId: invitee.userId, userEmail: invitee.email, userName: "Invitee" }).then(
          () => "accepted",
          (err: { code?: string }) => err.code ?? "unknown",
        ),
      ),
    );
    expect(outcomes.filter((o) => o === "accepted")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "conflict")).toHaveLength(9);
    const members = (await h.call("list_project_members", { projectId }, owner.key)).body.data as Array<{ userId: string }>;
    expect(members.filter((m) => m.userId === invitee.userId)).toHaveLength(1);
  });
});

describe("plan limits and invitation de-duplication under concurrency", () => {
  it("creates exactly 10 of 20 projects created at once on the free plan; the rest answer 402 usage_limited", async () => {
    const owner = await h.newActor();
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => h.call("create_project", { name: `Race ${i}` }, owner.key)));
    const statuses = statusesOf(responses);
    expect(countOf(statuses, 201)).toBe(10);
    expect(countOf(statuses, 402)).toBe(10);
    for (const r of responses.filter((x) => x.status === 402)) expect(r.body).toMatchObject({ code: "usage_limited", limit: "projects" });
    const usage = await h.call("get_usage", {}, owner.key);
    expect(usage.body.data).toMatchObject({ limits: { projects: { allowance: 10, used: 10 } } });
  });

  it("invites exactly 10 of 20 people invited at once with 10 seats; the rest answer 402 usage_limited", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const emails = Array.from({ length: 20 }, (_, i) => `seat-race-${i}-${owner.userId.toLowerCase()}@example.com`);
    const responses = await Promise.all(emails.map((email) => h.call("invite_project_member", { projectId, email }, owner.key)));
    const statuses = statusesOf(responses);
    expect(countOf(statuses, 201)).toBe(10);
    expect(countOf(statuses, 402)).toBe(10);
    for (const r of responses.filter((x) => x.status === 402)) expect(r.body).toMatchObject({ code: "usage_limited", limit: "seats" });
    const usage = await h.call("get_usage", {}, owner.key);
    expect(usage.body.data).toMatchObject({ limits: { seats: { used: 10 } } });
  });

  it("keeps one invitation and sends one email when one address is invited 10 times at once; the rest answer 409", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const email = `one-address-${owner.userId.toLowerCase()}@example.com`;
    const responses = await Promise.all(Array.from({ length: 10 }, () => h.call("invite_project_member", { projectId, email }, owner.key)));
    const statuses = statusesOf(responses);
    expect(countOf(statuses, 201)).toBe(1);
    expect(countOf(statuses, 409)).toBe(9);
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.code).toBe("conflict");
    const members = (await h.call("list_project_members", { projectId }, owner.key)).body.data as Array<{ email: string }>;
    expect(members.filter((m) => m.email === email)).toHaveLength(1);
    // Each invitation's email was sent before its 201 was answered, so the count is final here.
    expect(h.mail.filter((m) => m.to.includes(email))).toHaveLength(1);
  });
});
