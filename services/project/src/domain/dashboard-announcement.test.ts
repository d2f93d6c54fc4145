import { decodeProjectEvent } from "../events";
import { PROJECTS, type ProjectDoc } from "../store";
import { newProject, openProjectWorld, type ProjectWorld } from "../test-support";
import { setPublicDashboard } from "./dashboard";
import { announceDashboards } from "./dashboard-announcement";
import { updateProject } from "./projects";

let world: ProjectWorld;
beforeEach(async () => {
  world = await openProjectWorld();
});
afterEach(async () => {
  await world.close();
});

/** A project as the service left it before `project.dashboard_changed` existed: a share id, no event, no mark. */
const legacyProject = async (id: string, publicDashboard: ProjectDoc["publicDashboard"], status: ProjectDoc["status"] = "active"): Promise<ProjectDoc> => {
  const now = world.clock.now();
  return world.store.collection<ProjectDoc>(PROJECTS).insertOne({
    _id: id,
    workspaceId: "wsp_1",
    ownerId: "usr_owner",
    name: "Old launch",
    description: "",
    color: "#7e47eb",
    icon: "📡",
    enabledSources: ["reddit"],
    status,
    digestTimezone: "UTC",
    publicDashboard,
    createdAt: now,
    updatedAt: now,
  });
};

const dashboardEvents = async () =>
  (await world.events()).filter((e) => e.type === "project.dashboard_changed").map((e) => ({ key: e.key, ...decodeProjectEvent(e)!.data }));

describe("announcing dashboards enabled before project.dashboard_changed", () => {
  it("stages one event for a project whose dashboard was enabled before the event existed, and marks it", async () => {
    await legacyProject("prj_old", { enabled: true, shareId: "oldShare0001", description: "" });
    expect(await announceDashboards(world.deps)).toBe(1);
    expect(await dashboardEvents()).toEqual([{ key: "prj_old", projectId: "prj_old", workspaceId: "wsp_1", shareId: "oldShare0001", served: true }]);
    expect((await world.store.collection<ProjectDoc>(PROJECTS).findById("prj_old"))?.dashboardAnnounced).toBe(true);
  });

  it("says whether it is served: a disabled dashboard or an archived project is announced as not served", async () => {
    await legacyProject("prj_off", { enabled: false, shareId: "offShare0001", description: "" });
    await legacyProject("prj_gone", { enabled: true, shareId: "goneShare001", description: "" }, "archived");
    await announceDashboards(world.deps);
    expect(await dashboardEvents()).toEqual([
      expect.objectContaining({ shareId: "goneShare001", served: false }),
      expect.objectContaining({ shareId: "offShare0001", served: false }),
    ]);
  });

  it("stages nothing on a second start", async () => {
    await legacyProject("prj_old", { enabled: true, shareId: "oldShare0001", description: "" });
    await announceDashboards(world.deps);
    expect(await announceDashboards(world.replica())).toBe(0);
    expect(await dashboardEvents()).toHaveLength(1);
  });

  it("stages nothing for a project without a share id", async () => {
    await legacyProject("prj_never", { enabled: false, description: "" });
    await newProject(world, "Private");
    expect(await announceDashboards(world.deps)).toBe(0);
    expect(await dashboardEvents()).toEqual([]);
  });

  it("does not announce again a dashboard whose enabling already staged the event", async () => {
    const project = await newProject(world, "New");
    await setPublicDashboard(world.deps, world.caller(), { projectId: project._id, enabled: true });
    await updateProject(world.deps, world.caller(), project._id, { description: "only members see this" });
    expect(await dashboardEvents()).toHaveLength(1);
    expect(await announceDashboards(world.deps)).toBe(0);
    expect(await dashboardEvents()).toHaveLength(1);
  });

  it("stages one event per project when two replicas start at once", async () => {
    for (let i = 0; i < 5; i++) await legacyProject(`prj_race${i}`, { enabled: true, shareId: `raceShare00${i}`, description: "" });
    const [a, b] = await Promise.all([announceDashboards(world.deps, 2), announceDashboards(world.replica(), 2)]);
    expect(a + b).toBe(5);
    expect((await dashboardEvents()).map((e) => e.projectId).sort()).toEqual(["prj_race0", "prj_race1", "prj_race2", "prj_race3", "prj_race4"]);
  });

  it("walks every project in batches", async () => {
    for (let i = 0; i < 7; i++) await legacyProject(`prj_batch${i}`, { enabled: true, shareId: `batchShare0${i}`, description: "" });
    expect(await announceDashboards(world.deps, 3)).toBe(7);
    expect(await dashboardEvents()).toHaveLength(7);
  });
});
