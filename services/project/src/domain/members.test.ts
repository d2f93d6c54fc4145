import { addMember, newProject, openProjectWorld, type ProjectWorld, refusalOf } from "../test-support";
import { acceptInvitation } from "./invitations";
import { INVITATION_TTL_MS, inviteMember, listMembers, removeMember, updateMemberRole } from "./members";

let world: ProjectWorld;
beforeEach(async () => {
  world = await openProjectWorld();
});
afterEach(async () => {
  await world.close();
});


const invite = (projectId: string, email: string, role = "viewer") =>
  inviteMember(world.deps, world.caller(), { projectId, email, role, acceptUrlBase: "http://localhost:8080" });

describe("invitations", () => {
  it("mails a link whose token makes the invitee a member with the invited role, once", async () => {
    const project = await newProject(world);
    const invitation = await invite(project._id, "Bea@Example.com", "editor");
    expect(invitation).toMatchObject({ memberType: "invite", status: "pending", email: "bea@example.com", role: "editor" });
    expect(JSON.stringify(invitation)).not.toContain(world.invitationToken("bea@example.com"));
    const input = { token: world.invitationToken("bea@example.com"), userId: "usr_bea", userEmail: "bea@example.com", userName: "Bea" };
    const { member } = await acceptInvitation(world.deps, input);
    expect(member).toMatchObject({ memberType: "member", role: "editor", userId: "usr_bea", projectId: project._id });
    expect((await refusalOf(acceptInvitation(world.deps, input))).code).toBe("conflict");
    expect((await world.events()).map((e) => e.type)).toEqual(["project.created", "member.invited", "member.added"]);
  });

  it("refuses the link to an account with another email, and after seven days", async () => {
    const project = await newProject(world);
    await invite(project._id, "cy@example.com");
    const token = world.invitationToken("cy@example.com");
    expect((await refusalOf(acceptInvitation(world.deps, { token, userId: "usr_x", userEmail: "other@example.com", userName: "X" }))).code).toBe("forbidden");
    world.clock.advance(INVITATION_TTL_MS + 1);
    expect((await refusalOf(acceptInvitation(world.deps, { token, userId: "usr_cy", userEmail: "cy@example.com", userName: "Cy" }))).message).toContain("expired");
  });

  it("refuses an accept whose invitation expired while it ran and whose seat another invitation took meanwhile", async () => {
    const caller = world.caller({ allowances: { projects: 10, seats: 1 } });
    const project = await newProject(world, "Team", caller);
    const inviteAs = (deps: typeof world.deps, email: string) =>
      inviteMember(deps, caller, { projectId: project._id, email, role: "viewer", acceptUrlBase: "http://localhost:8080" });
    await inviteAs(world.deps, "dee@example.com");
    const other = world.replica();
    const members = world.deps.collections.members;
    const findOne = members.findOne.bind(members);
    let interleaved = false;
    // Between the accept's checks and its commit: the invitation expires and another replica gives its seat away.
    jest.spyOn(members, "findOne").mockImplementation(async (filter) => {
      if (!interleaved && "memberKey" in filter) {
        interleaved = true;
        world.clock.advance(INVITATION_TTL_MS);
        await inviteAs(other, "eve@example.com");
      }
      return findOne(filter);
    });
    const accept = acceptInvitation(world.deps, { token: world.invitationToken("dee@example.com"), userId: "usr_dee", userEmail: "dee@example.com", userName: "Dee" });
    expect((await refusalOf(accept)).message).toContain("expired");
    expect(interleaved).toBe(true);
    expect(await world.deps.collections.members.count({ memberType: "member", role: { $ne: "owner" } })).toBe(0);
  });

  it("refuses an accept whose account name is over the name limit, naming userName", async () => {
    const project = await newProject(world);
    await invite(project._id, "fay@example.com");
    const token = world.invitationToken("fay@example.com");
    for (const userName of ["x".repeat(101), "   ", `a${"\u0301".repeat(50)}`]) {
      const err = await refusalOf(acceptInvitation(world.deps, { token, userId: "usr_fay", userEmail: "fay@example.com", userName }));
      expect(err).toMatchObject({ code: "validation_failed", errors: [{ path: "userName" }] });
    }
    expect(await world.deps.collections.members.count({ memberType: "member", userId: "usr_fay" })).toBe(0);
    await expect(acceptInvitation(world.deps, { token, userId: "usr_fay", userEmail: "fay@example.com", userName: " Fay " })).resolves.toMatchObject({ member: { name: "Fay" } });
  });

  it("shows pending invitations to the owner only", async () => {
    const project = await newProject(world);
    const viewer = await addMember(world, project._id, "viewer");
    world.clock.advance(1000);
    await invite(project._id, "pending@example.com");
    const emails = async (caller = world.caller()) => (await listMembers(world.deps, caller, project._id, 0, undefined)).page.items.map((m) => m.email);
    expect(await emails()).toEqual(["owner@example.com", "viewer@example.com", "pending@example.com"]);
    expect(await emails(viewer)).toEqual(["owner@example.com", "viewer@example.com"]);
  });
});

describe("managing members", () => {
  it("changes a member's role and removes them, each with its event, but never the owner", async () => {
    const project = await newProject(world);
    const viewer = await addMember(world, project._id, "viewer");
    const row = (await listMembers(world.deps, world.caller(), project._id, 0, undefined)).page.items.find((m) => m.userId === viewer.userId)!;
    expect((await updateMemberRole(world.deps, world.caller(), { projectId: project._id, memberId: row._id, role: "editor", memberType: "member" })).role).toBe("editor");
    await removeMember(world.deps, world.caller(), { projectId: project._id, memberId: row._id, memberType: "member" });
    const owner = (await listMembers(world.deps, world.caller(), project._id, 0, undefined)).page.items.find((m) => m.role === "owner")!;
    expect((await refusalOf(removeMember(world.deps, world.caller(), { projectId: project._id, memberId: owner._id, memberType: "member" }))).code).toBe("conflict");
    expect((await world.events()).map((e) => e.type).slice(-2)).toEqual(["member.role_changed", "member.removed"]);
    // A removed member's next attempt is a stranger's: not_found.
    expect((await refusalOf(listMembers(world.deps, viewer, project._id, 0, undefined))).code).toBe("not_found");
  });
});
