import { accountEvent, newProject, openProjectWorld, type ProjectWorld, refusalOf } from "../test-support";
import { setPublicDashboard } from "./dashboard";
import { handleAccountEvent } from "./deactivation";
import { archiveProject, updateProject } from "./projects";
import { getPublicDashboard } from "./public-dashboard";

let world: ProjectWorld;
beforeEach(async () => {
  world = await openProjectWorld();
});
afterEach(async () => {
  await world.close();
});

const enabledProject = async () => {
  const project = await newProject(world, "Launch");
  await updateProject(world.deps, world.caller(), project._id, { description: "Internal: the Q3 plan", color: "#112233", icon: "🚀" });
  const view = await setPublicDashboard(world.deps, world.caller(), {
    projectId: project._id,
    enabled: true,
    description: "What people say about our launch",
    websiteUrl: "https://launch.example.com",
  });
  return { projectId: project._id, shareId: view.project.publicDashboard.shareId! };
};

const dashboardEvents = async () =>
  (await world.events()).filter((e) => e.type === "project.dashboard_changed").map((e) => e.data as { shareId: string; served: boolean });

describe("the public dashboard read", () => {
  it("resolves a share id to the project's public face alone: the dashboard's description, never the project's own", async () => {
    const { shareId } = await enabledProject();
    const face = await getPublicDashboard(world.deps, shareId);
    expect(face).toEqual({
      shareId,
      name: "Launch",
      color: "#112233",
      icon: "🚀",
      description: "What people say about our launch",
      websiteUrl: "https://launch.example.com",
      paused: false,
      enabledSources: expect.any(Array),
      timezone: "UTC",
    });
    expect(JSON.stringify(face)).not.toContain("Q3 plan");
  });

  it("answers a paused project with its data and the pause noted", async () => {
    const { projectId, shareId } = await enabledProject();
    await updateProject(world.deps, world.caller(), projectId, { status: "paused" });
    expect((await getPublicDashboard(world.deps, shareId)).paused).toBe(true);
  });

  it("answers the same not_found for an unknown share id, a disabled dashboard, an archived project and an owner's deactivation", async () => {
    expect(await refusalOf(getPublicDashboard(world.deps, "unknownShare"))).toMatchObject({ code: "not_found" });
    expect(await refusalOf(getPublicDashboard(world.deps, "../../etc"))).toMatchObject({ code: "not_found" });

    const disabled = await enabledProject();
    await setPublicDashboard(world.deps, world.caller(), { projectId: disabled.projectId, enabled: false });
    expect(await refusalOf(getPublicDashboard(world.deps, disabled.shareId))).toMatchObject({ code: "not_found" });

    const deactivated = await enabledProject();
    await handleAccountEvent(world.deps, accountEvent("user.deactivated", "usr_owner"));
    expect(await refusalOf(getPublicDashboard(world.deps, deactivated.shareId))).toMatchObject({ code: "not_found" });
    await handleAccountEvent(world.deps, accountEvent("user.reactivated", "usr_owner"));
    expect((await getPublicDashboard(world.deps, deactivated.shareId)).name).toBe("Launch");

    await archiveProject(world.deps, world.caller(), deactivated.projectId);
    expect(await refusalOf(getPublicDashboard(world.deps, deactivated.shareId))).toMatchObject({ code: "not_found" });
  });

  it("keeps the share id of a disabled dashboard, and serves it again when enabled again", async () => {
    const { projectId, shareId } = await enabledProject();
    await setPublicDashboard(world.deps, world.caller(), { projectId, enabled: false });
    const again = await setPublicDashboard(world.deps, world.caller(), { projectId, enabled: true });
    expect(again.project.publicDashboard.shareId).toBe(shareId);
    expect((await getPublicDashboard(world.deps, shareId)).name).toBe("Launch");
  });
});

describe("project.dashboard_changed", () => {
  it("says so when the dashboard is enabled, disabled, its face edited or the project archived, with whether it is served", async () => {
    const { projectId, shareId } = await enabledProject();
    await updateProject(world.deps, world.caller(), projectId, { name: "Launch 2" });
    await setPublicDashboard(world.deps, world.caller(), { projectId, enabled: false });
    await setPublicDashboard(world.deps, world.caller(), { projectId, enabled: true });
    await archiveProject(world.deps, world.caller(), projectId);
    expect(await dashboardEvents()).toEqual([
      expect.objectContaining({ shareId, served: true }),
      expect.objectContaining({ shareId, served: true }),
      expect.objectContaining({ shareId, served: false }),
      expect.objectContaining({ shareId, served: true }),
      expect.objectContaining({ shareId, served: false }),
    ]);
  });

  it("says nothing for a project that never had a dashboard, nor for a change the dashboard does not show", async () => {
    const project = await newProject(world, "Private");
    await updateProject(world.deps, world.caller(), project._id, { name: "Still private" });
    const { projectId } = await enabledProject();
    const before = (await dashboardEvents()).length;
    await updateProject(world.deps, world.caller(), projectId, { description: "Only members read this" });
    expect(await dashboardEvents()).toHaveLength(before);
    expect(before).toBe(1);
  });
});
