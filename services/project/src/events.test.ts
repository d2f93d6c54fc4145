import { checkStagedEvents } from "@earshot/platform/testing";
import { setPublicDashboard } from "./domain/dashboard";
import { acceptInvitation } from "./domain/invitations";
import { hashToken, inviteMember, removeMember, updateMemberRole } from "./domain/members";
import { archiveProject, createProject, membershipsOf, updateProject } from "./domain/projects";
import { PROJECT_EVENTS } from "./events";
import { MEMBERS, type MemberDoc } from "./store";
import { openProjectWorld, type ProjectWorld } from "./test-support";

// Every event the service stages carries, as data, exactly the proto JSON form of its type's message in
// events.proto (decoding it loses nothing and needs nothing more), and every type of the catalog is
// staged by some verb: a type without a message cannot be declared, and one no verb stages is noticed here.

let world: ProjectWorld;
beforeEach(async () => {
  world = await openProjectWorld();
});
afterEach(async () => {
  await world.close();
});

/** Invites `email` and lets the test know the emailed token by setting it on the stored invitation. */
const invite = async (projectId: string, email: string, role: string, token: string) => {
  const invitation = await inviteMember(world.deps, world.caller(), { projectId, email, role, acceptUrlBase: "https://earshot.test" });
  await world.store.commit([
    { kind: "replace", collection: MEMBERS, doc: { ...invitation, tokenHash: hashToken(token) } as MemberDoc, expectedVersion: invitation._v ?? 1 },
  ]);
  return invitation;
};

/** Drives every verb that emits, so each event type appears at least once. */
const emitEveryEvent = async () => {
  const owner = world.caller();
  const { project } = await createProject(world.deps, owner, { name: "Launch" });
  await updateProject(world.deps, owner, project._id, { description: "Our launch" });
  await setPublicDashboard(world.deps, owner, { projectId: project._id, enabled: true });
  await invite(project._id, "ed@example.com", "viewer", "token-ed-0123456789abcdef");
  const { member } = await acceptInvitation(world.deps, { token: "token-ed-0123456789abcdef", userId: "usr_ed", userEmail: "ed@example.com", userName: "Ed" });
  await updateMemberRole(world.deps, owner, { projectId: project._id, memberId: member._id, role: "editor", memberType: "member" });
  await removeMember(world.deps, owner, { projectId: project._id, memberId: member._id, memberType: "member" });
  const pending = await invite(project._id, "vi@example.com", "viewer", "token-vi-0123456789abcdef");
  await removeMember(world.deps, owner, { projectId: project._id, memberId: pending._id, memberType: "invite" });
  await archiveProject(world.deps, owner, project._id);
  return project._id;
};

describe("project events", () => {
  it("carries each event's data as the JSON form of its events.proto message, for every event type", async () => {
    const projectId = await emitEveryEvent();
    const events = await world.events();
    const { covered, problems } = checkStagedEvents(PROJECT_EVENTS, events);
    expect(problems).toEqual([]);
    expect(covered).toEqual(new Set(PROJECT_EVENTS.types));
    // Keyed by project id, so one project's events keep their order.
    expect(new Set(events.map((e) => e.key))).toEqual(new Set([projectId]));
  });

  it("names the member, the role and the member type in member events as the API's words", async () => {
    await emitEveryEvent();
    const changed = (await world.events()).filter((e) => e.type === "member.role_changed").map((e) => e.data);
    expect(changed).toEqual([expect.objectContaining({ userId: "usr_ed", memberType: "member", role: "editor", email: "ed@example.com" })]);
  });
});

describe("memberships of a user", () => {
  it("lists the projects a user is a member of with the role and workspace, leaving out archived projects and pending invitations", async () => {
    const owner = world.caller();
    const { project: kept } = await createProject(world.deps, owner, { name: "Kept" });
    const { project: archived } = await createProject(world.deps, owner, { name: "Archived" });
    await invite(kept._id, "ed@example.com", "editor", "token-ed-0123456789abcdef");
    await acceptInvitation(world.deps, { token: "token-ed-0123456789abcdef", userId: "usr_ed", userEmail: "ed@example.com", userName: "Ed" });
    await inviteMember(world.deps, owner, { projectId: archived._id, email: "ed@example.com", role: "viewer", acceptUrlBase: "https://earshot.test" });
    await archiveProject(world.deps, owner, archived._id);
    expect(await membershipsOf(world.deps, "usr_ed")).toEqual([{ projectId: kept._id, role: "editor", workspaceId: owner.workspaceId }]);
    expect(await membershipsOf(world.deps, owner.userId)).toEqual([{ projectId: kept._id, role: "owner", workspaceId: owner.workspaceId }]);
    expect(await membershipsOf(world.deps, "usr_nobody")).toEqual([]);
  });
});
