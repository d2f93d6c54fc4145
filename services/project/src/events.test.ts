import { type OutboxRecord, OUTBOX_COLLECTION } from "@earshot/platform";
import { projectV1Events } from "@earshot/proto";
import { setPublicDashboard } from "./domain/dashboard";
import { acceptInvitation } from "./domain/invitations";
import { hashToken, inviteMember, removeMember, updateMemberRole } from "./domain/members";
import { archiveProject, createProject, membershipsOf, updateProject } from "./domain/projects";
import { PROJECT_EVENT_TYPES, type ProjectEventType } from "./events";
import { MEMBERS, type MemberDoc } from "./store";
import { openProjectWorld, type ProjectWorld } from "./test-support";

// Every event the service emits carries, as data, the proto JSON form of its message in events.proto:
// decoding it with that message loses nothing and needs nothing more.

interface MessageFns<T> {
  fromJSON(object: unknown): T;
  fromPartial(object: object): T;
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

const MESSAGE_OF: Record<ProjectEventType, MessageFns<unknown>> = {
  "project.created": projectV1Events.ProjectCreated as MessageFns<unknown>,
  "project.updated": projectV1Events.ProjectUpdated as MessageFns<unknown>,
  "project.archived": projectV1Events.ProjectArchived as MessageFns<unknown>,
  "member.invited": projectV1Events.MemberChanged as MessageFns<unknown>,
  "member.added": projectV1Events.MemberChanged as MessageFns<unknown>,
  "member.role_changed": projectV1Events.MemberChanged as MessageFns<unknown>,
  "member.removed": projectV1Events.MemberChanged as MessageFns<unknown>,
  "member.invite_revoked": projectV1Events.MemberChanged as MessageFns<unknown>,
};

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
    const records = await world.store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { _id: 1 } });
    expect(new Set(records.map((r) => r.event.type))).toEqual(new Set(PROJECT_EVENT_TYPES));
    for (const { event, key, topic } of records) {
      expect({ type: event.type, topic, key, source: event.source }).toEqual({
        type: event.type,
        topic: "earshot.project.v1",
        key: projectId,
        source: "earshot/project",
      });
      const message = MESSAGE_OF[event.type as ProjectEventType];
      const data = event.data as Record<string, unknown>;
      const decoded = message.fromJSON(data) as Record<string, unknown>;
      // No field outside the message, and every field the message has, with the value the data gave.
      expect(Object.keys(data).sort()).toEqual(Object.keys(message.fromPartial({}) as object).sort());
      expect(decoded).toEqual(data);
      expect(message.decode(message.encode(decoded).finish())).toEqual(decoded);
    }
  });

  it("names the member, the role and the member type in member events as the API's words", async () => {
    await emitEveryEvent();
    const records = await world.store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { _id: 1 } });
    const changed = records.filter((r) => r.event.type === "member.role_changed").map((r) => r.event.data);
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
