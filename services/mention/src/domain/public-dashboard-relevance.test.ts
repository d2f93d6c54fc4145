import type { MentionDoc } from "../store";
import { type MentionWorld, openMentionWorld } from "../test-support";
import { getPublicAnalytics, listPublicMentions } from "./public-dashboard";

// A public dashboard's relevance bound, set by the project (project.dashboard_changed's minRelevance): its
// list and its counts leave out mentions scoring below it, an unscored mention counting as 0.5; a later
// event without a bound removes it.

it("shows and counts only mentions at or above the project's bound, until a change removes it", async () => {
  const world: MentionWorld = await openMentionWorld();
  try {
    const projectId = await world.newProject();
    const shareId = "shareRel123_";
    const dashboard = (minRelevance?: number) =>
      world.projectEvent("project.dashboard_changed", { projectId, workspaceId: "wsp_1", shareId, served: true, ...(minRelevance !== undefined && { minRelevance }) });
    await dashboard(0.6);
    const at = new Date(world.clock.now().getTime() - 60_000);
    const seed = (text: string, score?: number) =>
      world.seedMention(projectId, { text, publishedAt: at, ...(score !== undefined && { relevance: { score, label: "uncertain", reasons: [], model: "m1" } }) } as Partial<MentionDoc>);
    await seed("Acme tracker", 0.9);
    await seed("acme algebra", 0.1);
    await seed("Acme before scoring");
    const texts = async () => (await listPublicMentions(world.deps, shareId, {})).items.map((m) => m.text).sort();
    expect(await texts()).toEqual(["Acme tracker"]);
    expect((await getPublicAnalytics(world.deps, shareId, {})).total).toBe(1);
    await dashboard(0.5);
    expect(await texts()).toEqual(["Acme before scoring", "Acme tracker"]);
    await dashboard();
    expect(await texts()).toEqual(["Acme before scoring", "Acme tracker", "acme algebra"]);
  } finally {
    await world.close();
  }
});
