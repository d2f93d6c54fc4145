import { toAlertMessage } from "../rpc/alert-rpc";
import { openAlertWorld, refusalOf } from "../test-support";
import { createAlert, updateAlert } from "./alerts";

// A rule's filters.minRelevance: checked (0..1, naming the field), kept, shown, carried by the rule's events
// to the digest service (which applies it, see the digest's relevance-bound test); editors only, own workspace only.

it("keeps filters.minRelevance, refuses one outside 0..1 naming it, and carries it in the rule's events", async () => {
  const world = await openAlertWorld();
  try {
    const projectId = await world.newProject();
    const editor = world.caller({ [projectId]: "editor" });
    const bad = await refusalOf(createAlert(world.deps, editor, { projectId, name: "Bad", filters: { minRelevance: 2 } }));
    expect(bad).toMatchObject({ code: "validation_failed", errors: [{ path: "filters.minRelevance" }] });
    const input = { projectId, name: "Signal", filters: { minRelevance: 0.7 } };
    const alert = await createAlert(world.deps, editor, input, "idem-alert-relevance");
    expect((await createAlert(world.deps, editor, input, "idem-alert-relevance"))._id).toBe(alert._id);
    expect(toAlertMessage(alert).filters?.minRelevance).toBe(0.7);
    expect(await refusalOf(updateAlert(world.deps, world.caller({ [projectId]: "viewer" }), alert._id, { filters: { minRelevance: 0.2 } }))).toMatchObject({ code: "forbidden" });
    expect(await refusalOf(updateAlert(world.deps, world.caller({}, { workspaceId: "wsp_2" }), alert._id, { filters: { minRelevance: 0.2 } }))).toMatchObject({ code: "not_found" });
    expect(await refusalOf(updateAlert(world.deps, editor, alert._id, { filters: { minRelevance: "high" } }))).toMatchObject({ errors: [{ path: "filters.minRelevance" }] });
    // A given filters object replaces the old one whole: without minRelevance, no bound.
    const cleared = await updateAlert(world.deps, editor, alert._id, { filters: {} });
    expect(toAlertMessage(cleared).filters?.minRelevance).toBeUndefined();
    const events = (await world.events()).filter((e) => (e.data as { alertId?: string }).alertId === alert._id);
    expect(events.map((e) => [e.type, (e.data as { minRelevance?: number }).minRelevance])).toEqual([
      ["alert.created", 0.7],
      ["alert.updated", undefined],
    ]);
  } finally {
    await world.close();
  }
});
