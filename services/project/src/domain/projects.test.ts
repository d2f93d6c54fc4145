import { PROJECT_TOPIC } from "../events";
import { addMember, newProject, openProjectWorld, type ProjectWorld, refusalOf } from "../test-support";
import { loadVisibleProject } from "./access";
import { archiveProject, createProject, listProjects, updateProject } from "./projects";

let world: ProjectWorld;
beforeEach(async () => {
  world = await openProjectWorld();
});
afterEach(async () => {
  await world.close();
});


describe("creating projects", () => {
  it("creates an active project with the spec's defaults and the creator as its owner member", async () => {
    const view = await createProject(world.deps, world.caller(), { name: "  Launch  " });
    expect(view.role).toBe("owner");
    expect(view.project).toMatchObject({
      name: "Launch",
      status: "active",
      workspaceId: "wsp_1",
      ownerId: "usr_owner",
      publicDashboard: { enabled: false },
    });
    // The Daily Digest is the alert service's rule, not a field of the project.
    expect(view.project).not.toHaveProperty("digest");
    expect(view.project._id).toMatch(/^prj_/);
    expect(view.membership).toMatchObject({ memberType: "member", role: "owner", userId: "usr_owner", email: "owner@example.com" });
  });

  it("stores project.created in the outbox in the same commit, keyed by the project", async () => {
    const project = await newProject(world);
    expect(await world.events()).toEqual([
      expect.objectContaining({ topic: PROJECT_TOPIC, key: project._id, type: "project.created", source: "earshot/project", data: expect.objectContaining({ name: "Launch" }) }),
    ]);
  });

  it("names every bad field at once", async () => {
    const err = await refusalOf(createProject(world.deps, world.caller(), { name: " ", digestTimezone: "Mars/Olympus", enabledSources: ["fax"] }));
    expect(err.code).toBe("validation_failed");
    expect(err.errors?.map((e) => e.path).sort()).toEqual(expect.arrayContaining(["digestTimezone", "name"]));
  });

  it("answers usage_limited once the workspace holds its plan's projects, counting archived ones out", async () => {
    const caller = world.caller({ allowances: { projects: 2, seats: 10 } });
    const first = await newProject(world, "One", caller);
    await newProject(world, "Two", caller);
    expect((await refusalOf(newProject(world, "Three", caller))).code).toBe("usage_limited");
    await archiveProject(world.deps, caller, first._id);
    expect((await newProject(world, "Three", caller)).name).toBe("Three");
  });
});

describe("who sees and changes a project", () => {
  it("answers not_found to someone who is not a member, exactly as for a missing project", async () => {
    const project = await newProject(world);
    const stranger = world.caller({ userId: "usr_stranger", email: "stranger@example.com" });
    for (const attempt of [
      loadVisibleProject(world.deps, stranger, project._id),
      updateProject(world.deps, stranger, project._id, { name: "Mine" }),
      archiveProject(world.deps, stranger, project._id),
      loadVisibleProject(world.deps, world.caller(), "prj_missing"),
    ]) {
      expect((await refusalOf(attempt)).code).toBe("not_found");
    }
  });

  it("lets viewers read, editors change fields, and only the owner change the status", async () => {
    const project = await newProject(world);
    const viewer = await addMember(world, project._id, "viewer");
    const editor = await addMember(world, project._id, "editor");
    expect((await loadVisibleProject(world.deps, viewer, project._id)).role).toBe("viewer");
    expect((await refusalOf(updateProject(world.deps, viewer, project._id, { name: "Viewer's" }))).code).toBe("forbidden");
    expect((await updateProject(world.deps, editor, project._id, { name: "Editor's" })).project.name).toBe("Editor's");
    expect((await refusalOf(updateProject(world.deps, editor, project._id, { status: "paused" }))).code).toBe("forbidden");
    expect((await refusalOf(archiveProject(world.deps, editor, project._id))).code).toBe("forbidden");
    expect((await updateProject(world.deps, world.caller(), project._id, { status: "paused" })).project.status).toBe("paused");
  });

  it("freezes an archived project and leaves it out of the list", async () => {
    const kept = await newProject(world, "Kept");
    const archived = await newProject(world, "Archived");
    await archiveProject(world.deps, world.caller(), archived._id);
    // Archiving again is a no-op, not an error.
    expect((await archiveProject(world.deps, world.caller(), archived._id)).project.status).toBe("archived");
    expect((await refusalOf(updateProject(world.deps, world.caller(), archived._id, { name: "Thawed" }))).code).toBe("conflict");
    const page = await listProjects(world.deps, world.caller(), 0, undefined);
    expect(page.items.map((v) => v.project._id)).toEqual([kept._id]);
    expect((await world.events()).filter((e) => e.type === "project.archived").map((e) => e.subject ?? e.key)).toEqual([archived._id]);
  });
});
