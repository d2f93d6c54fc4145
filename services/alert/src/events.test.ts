import { checkStagedEvents } from "@earshot/platform/testing";
import { createAlert, deleteAlert, updateAlert } from "./domain/alerts";
import { ALERT_EVENTS } from "./events";
import { openAlertWorld } from "./test-support";

// Every event the service stages carries, as data, exactly the proto JSON form of its type's message in
// events.proto, and every type of the catalog is staged by some verb.

describe("alert events", () => {
  it("carries each event's data as the JSON form of its events.proto message, for every event type", async () => {
    const world = await openAlertWorld();
    try {
      const projectId = await world.newProject();
      const editor = world.caller({ [projectId]: "editor" });
      const alert = await createAlert(world.deps, editor, { projectId, name: "Complaints", filters: { sentiments: ["negative"] } });
      await updateAlert(world.deps, editor, alert._id, { instant: true });
      await deleteAlert(world.deps, editor, alert._id);
      const { covered, problems } = checkStagedEvents(ALERT_EVENTS, await world.events());
      expect(problems).toEqual([]);
      expect(covered).toEqual(new Set(ALERT_EVENTS.types));
    } finally {
      await world.close();
    }
  });
});
