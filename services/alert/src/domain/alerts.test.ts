import { openAlertWorld, refusalOf } from "../test-support";
import { createAlert, deleteAlert, getAlert, listAlerts, updateAlert } from "./alerts";

// Alert rules: every project's Daily Digest (from project.created, or on first use for a project this
// service has not heard of), the rules' fields as the service checks them, who may write, and the events
// the digest service keeps its copy from.

describe("alert rules", () => {
  it("gives a new project its Daily Digest, once, however often the event arrives", async () => {
    const world = await openAlertWorld();
    try {
      const projectId = await world.newProject();
      await world.projectEvent("project.created", { projectId, workspaceId: "wsp_1", ownerId: "usr_1", name: "Launch" });
      const page = await listAlerts(world.deps, world.caller({ [projectId]: "viewer" }), { projectId });
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({ name: "Daily Digest", kind: "daily_digest", active: true, digest: { enabled: true, hour: 8 }, instant: false, channels: [{ type: "email" }] });
    } finally {
      await world.close();
    }
  });

  it("gives a project that predates the service its Daily Digest on first use", async () => {
    const world = await openAlertWorld();
    try {
      const projectId = await world.newProject("wsp_1", false);
      const editor = world.caller({ [projectId]: "editor" });
      const custom = await createAlert(world.deps, editor, { projectId, name: "Complaints", instant: true });
      const page = await listAlerts(world.deps, editor, { projectId });
      expect(page.items.map((a) => a.name)).toEqual(["Daily Digest", "Complaints"]);
      expect(custom).toMatchObject({ active: true, instant: true, digest: { enabled: false, hour: 8 } });
    } finally {
      await world.close();
    }
  });

  it("refuses a non-email channel, two channels and an hour past 23, naming each field", async () => {
    const world = await openAlertWorld();
    try {
      const projectId = await world.newProject();
      const editor = world.caller({ [projectId]: "editor" });
      const refusal = await refusalOf(
        createAlert(world.deps, editor, { projectId, name: "Bad", channels: [{ type: "sms" }], digest: { enabled: true, hour: 24 } }),
      );
      expect(refusal).toMatchObject({ code: "validation_failed" });
      expect(JSON.stringify(refusal)).toContain("channels.0.type");
      expect(JSON.stringify(refusal)).toContain("digest.hour");
      const two = await refusalOf(createAlert(world.deps, editor, { projectId, name: "Bad", channels: [{ type: "email" }, { type: "email" }] }));
      expect(JSON.stringify(two)).toContain('"path":"channels"');
    } finally {
      await world.close();
    }
  });

  it("lets viewers read and refuses their writes; hides another workspace's rules as missing", async () => {
    const world = await openAlertWorld();
    try {
      const projectId = await world.newProject();
      const editor = world.caller({ [projectId]: "editor" });
      const alert = await createAlert(world.deps, editor, { projectId, name: "Mine" });
      const viewer = world.caller({ [projectId]: "viewer" });
      expect((await getAlert(world.deps, viewer, alert._id))._id).toBe(alert._id);
      expect(await refusalOf(updateAlert(world.deps, viewer, alert._id, { name: "Theirs" }))).toMatchObject({ code: "forbidden" });
      const stranger = world.caller({}, { workspaceId: "wsp_2" });
      expect(await refusalOf(getAlert(world.deps, stranger, alert._id))).toMatchObject({ code: "not_found" });
    } finally {
      await world.close();
    }
  });

  it("keeps the Daily Digest: it can be turned off, not deleted", async () => {
    const world = await openAlertWorld();
    try {
      const projectId = await world.newProject();
      const editor = world.caller({ [projectId]: "editor" });
      const [daily] = (await listAlerts(world.deps, editor, { projectId })).items;
      expect(await refusalOf(deleteAlert(world.deps, editor, daily!._id))).toMatchObject({ code: "conflict" });
      expect(await updateAlert(world.deps, editor, daily!._id, { digest: { enabled: true, hour: 6 }, active: false })).toMatchObject({ active: false, digest: { hour: 6 } });
    } finally {
      await world.close();
    }
  });
});
