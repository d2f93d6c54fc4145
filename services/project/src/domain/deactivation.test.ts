import { accountEvent, newProject, openProjectWorld, type ProjectWorld } from "../test-support";
import { handleAccountEvent } from "./deactivation";
import { updateProject } from "./projects";

let world: ProjectWorld;
beforeEach(async () => {
  world = await openProjectWorld();
});
afterEach(async () => {
  await world.close();
});

const statuses = async () =>
  Object.fromEntries((await world.deps.collections.projects.find({})).map((p) => [p.name, p.status]));

describe("account deactivation", () => {
  it("pauses the owner's active projects and resumes exactly those on reactivation", async () => {
    await newProject(world, "Running");
    const paused = await newProject(world, "Paused by the owner");
    await updateProject(world.deps, world.caller(), paused._id, { status: "paused" });
    await newProject(world, "Someone else's", world.caller({ userId: "usr_other", workspaceId: "wsp_2", email: "other@example.com" }));

    await handleAccountEvent(world.deps, accountEvent("user.deactivated", "usr_owner"));
    expect(await statuses()).toEqual({ Running: "paused", "Paused by the owner": "paused", "Someone else's": "active" });

    await handleAccountEvent(world.deps, accountEvent("user.reactivated", "usr_owner"));
    expect(await statuses()).toEqual({ Running: "active", "Paused by the owner": "paused", "Someone else's": "active" });
  });

  it("ignores an event it does not handle and one without a user", async () => {
    await newProject(world);
    await handleAccountEvent(world.deps, accountEvent("user.updated", "usr_owner"));
    await handleAccountEvent(world.deps, accountEvent("user.deactivated", ""));
    expect(await statuses()).toEqual({ Launch: "active" });
  });
});
