import { openDigestWorld, type DigestWorld } from "../test-support";
import { sendDigestNow } from "./digests";

// The emails name a project as it is now: `project.updated` carries the project, so a rename reaches the
// digest's copy (it used to keep the name `project.created` gave it for good).

let world: DigestWorld;
afterEach(async () => world?.close());

it("names a renamed project by its new name in the next digest", async () => {
  world = await openDigestWorld(new Date("2027-02-10T12:00:00Z"));
  const owner = await world.owner("ana@example.com");
  const { projectId } = await world.project(owner.workspaceId, "UTC", "Launch");
  await world.event("project", "project.updated", {
    projectId,
    workspaceId: owner.workspaceId,
    fields: ["name"],
    status: "active",
    digestTimezone: "UTC",
    enabledSources: ["x", "reddit"],
    project: { id: projectId, workspaceId: owner.workspaceId, name: "Liftoff", digestTimezone: "UTC" },
  });
  await sendDigestNow(world.deps, projectId);
  expect(world.sent).toHaveLength(1);
  expect(world.sent[0]?.subject).toContain("Daily Digest for Liftoff:");
  expect(world.sent[0]?.text).not.toContain("Launch");
});

it("keeps the name when an update does not carry the project (an event of an older producer)", async () => {
  world = await openDigestWorld(new Date("2027-02-10T12:00:00Z"));
  const owner = await world.owner("ana@example.com");
  const { projectId } = await world.project(owner.workspaceId, "UTC", "Launch");
  await world.event("project", "project.updated", { projectId, workspaceId: owner.workspaceId, fields: ["digestTimezone"], status: "active", digestTimezone: "UTC" });
  await sendDigestNow(world.deps, projectId);
  expect(world.sent[0]?.subject).toContain("Daily Digest for Launch:");
});
