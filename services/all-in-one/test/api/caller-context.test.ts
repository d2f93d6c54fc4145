import type { CloudEvent, EventData } from "@earshot/platform";
import type { PROJECT_EVENTS, ProjectEventType } from "@earshot/contracts/events";
import { commonV1 } from "@earshot/proto";
import { type Actor, type Harness, startHarness } from "./harness";
import { joinProject, memberIdOf as memberIdIn, membershipEventApplied } from "./membership-events";
import { buildWorld, createProject, keywordInput, type World } from "./world";

// The caller travels with every call: the edge sends the principal with the memberships its cache holds,
// and project events keep that cache current. A member removed from a project (or a project archived)
// is gone from the next caller as soon as the event is delivered, without the edge asking again.

describe("caller context", () => {
  let h: Harness;
  let w: World;
  beforeAll(async () => {
    h = await startHarness();
    w = await buildWorld(h);
  }, 60_000);
  afterAll(async () => {
    await h.stop();
  });

  const memberships = () => h.running.gateway.memberships;

  const applied: <K extends ProjectEventType>(type: K, match: (data: EventData<typeof PROJECT_EVENTS, K>) => boolean) => Promise<unknown> = (type, match) =>
    membershipEventApplied(h, type, match);
  const join = (role: "viewer" | "editor"): Promise<Actor> => joinProject(h, w.owner, w.projectId, role);
  const memberIdOf = (userId: string) => memberIdIn(h, w.owner, w.projectId, userId);

  it("answers 404 to a removed member and drops the project from their next caller once member.removed is delivered", async () => {
    const viewer = await join("viewer");
    expect((await h.call("get_project", { projectId: w.projectId }, viewer.key)).status).toBe(200);
    expect(memberships().peek(viewer.userId)).toEqual([{ projectId: w.projectId, role: commonV1.Role.ROLE_VIEWER, workspaceId: w.owner.workspaceId }]);
    const loads = memberships().loads;

    const delivered = applied("member.removed", (d) => d.userId === viewer.userId && d.projectId === w.projectId);
    const memberId = await memberIdOf(viewer.userId);
    const removed = await h.call("remove_project_member", { projectId: w.projectId, memberId, memberType: "member" }, w.owner.key);
    expect(removed.status).toBe(200);
    await delivered;

    const refused = await h.call("get_project", { projectId: w.projectId }, viewer.key);
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe("not_found");
    // What the viewer's next request sends as its caller: the cache updated by the event, not reloaded.
    expect(await memberships().forUser(viewer.userId)).not.toContainEqual(expect.objectContaining({ projectId: w.projectId }));
    expect(memberships().loads).toBe(loads);
  });

  it("drops an archived project from the next caller of every member once project.archived is delivered", async () => {
    const editor = await join("editor");
    expect((await h.call("get_project", { projectId: w.projectId }, editor.key)).status).toBe(200);
    expect(memberships().peek(editor.userId)).toEqual([{ projectId: w.projectId, role: commonV1.Role.ROLE_EDITOR, workspaceId: w.owner.workspaceId }]);
    const delivered = applied("project.archived", (d) => d.projectId === w.projectId);
    expect((await h.call("archive_project", { projectId: w.projectId }, w.owner.key)).status).toBe(200);
    await delivered;
    for (const who of [editor, w.owner]) {
      expect(await memberships().forUser(who.userId)).not.toContainEqual(expect.objectContaining({ projectId: w.projectId }));
    }
  });

  it("carries a project in its creator's next caller before project.created is delivered", async () => {
    const owner = await h.newActor();
    expect((await h.call("list_projects", {}, owner.key)).status).toBe(200);
    expect(memberships().peek(owner.userId)).toEqual([]);
    // This gateway applies no project event until the end, as when the bus is late or another replica
    // created the project: only what the create itself recorded can let the keyword call through.
    const cache = memberships();
    const held: CloudEvent[] = [];
    const apply = cache.apply.bind(cache);
    cache.apply = (event) => void held.push(event);
    try {
      const projectId = await createProject(h, owner);
      expect(memberships().peek(owner.userId)).toEqual([{ projectId, role: commonV1.Role.ROLE_OWNER, workspaceId: owner.workspaceId }]);
      const created = await h.call("create_keyword", keywordInput(projectId), owner.key);
      expect(created.status).toBe(201);
    } finally {
      cache.apply = apply;
      held.forEach(apply);
    }
  });
});
