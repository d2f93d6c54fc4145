import { toProjectMessage } from "../project-message";
import { newProject, openProjectWorld, type ProjectWorld, refusalOf } from "../test-support";
import { setPublicDashboard } from "./dashboard";

// The public dashboard's minRelevance: checked (0..1, naming the field), kept, shown, and carried by
// project.dashboard_changed to the mention service, which applies it to the dashboard's reads.

let world: ProjectWorld;
beforeEach(async () => {
  world = await openProjectWorld();
});
afterEach(async () => {
  await world.close();
});

it("keeps the bound, refuses one outside 0..1 naming minRelevance, removes it with 0, and says each change in project.dashboard_changed", async () => {
  const project = await newProject(world, "Launch");
  const bad = await refusalOf(setPublicDashboard(world.deps, world.caller(), { projectId: project._id, enabled: true, minRelevance: 1.5 }));
  expect(bad).toMatchObject({ code: "validation_failed", errors: [{ path: "minRelevance" }] });
  const set = await setPublicDashboard(world.deps, world.caller(), { projectId: project._id, enabled: true, minRelevance: 0.65 });
  expect(set.project.publicDashboard.minRelevance).toBe(0.65);
  expect(toProjectMessage(set.project, "owner").publicDashboard?.minRelevance).toBe(0.65);
  // Another change of the dashboard keeps the bound.
  const kept = await setPublicDashboard(world.deps, world.caller(), { projectId: project._id, enabled: true, description: "Our launch" });
  expect(kept.project.publicDashboard.minRelevance).toBe(0.65);
  const removed = await setPublicDashboard(world.deps, world.caller(), { projectId: project._id, enabled: true, minRelevance: 0 });
  expect(removed.project.publicDashboard.minRelevance).toBeUndefined();
  const bounds = (await world.events()).filter((e) => e.type === "project.dashboard_changed").map((e) => (e.data as { minRelevance?: number }).minRelevance);
  expect(bounds).toEqual([0.65, 0.65, undefined]);
});
