import { MENTION_TOPIC } from "../events";
import { createCategory } from "./categories";
import { categorizeMention, getMention, MAX_HISTORY, updateMentionStatus } from "./mentions";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";

describe("one mention: get, status and category", () => {
  let world: MentionWorld;
  const projectId = "prj_01JMENTIONS000000000000001";
  const otherProject = "prj_01JMENTIONS000000000000002";
  beforeEach(async () => {
    world = await openMentionWorld();
  });
  afterEach(() => world.close());

  const editor = () => world.caller({ [projectId]: "editor" }, { userId: "usr_ed" });
  const viewer = () => world.caller({ [projectId]: "viewer" });
  const outsider = () => world.caller({ [otherProject]: "owner" });

  it("reads a mention with its triage history", async () => {
    const m = await world.seedMention(projectId);
    await updateMentionStatus(world.deps, editor(), m._id, "done");
    const read = await getMention(world.deps, viewer(), m._id);
    expect(read).toMatchObject({ _id: m._id, status: "done", history: [{ field: "status", from: "open", to: "done", byUserId: "usr_ed" }] });
  });

  it("answers not_found to a non-member exactly as for a missing mention", async () => {
    const m = await world.seedMention(projectId);
    const hidden = await refusalOf(getMention(world.deps, outsider(), m._id));
    const missing = await refusalOf(getMention(world.deps, outsider(), "men_01JNOSUCHMENTION0000000000"));
    expect(hidden.code).toBe("not_found");
    expect(hidden.message).toBe(missing.message);
    expect((await refusalOf(updateMentionStatus(world.deps, outsider(), m._id, "done"))).message).toBe(missing.message);
    expect((await refusalOf(categorizeMention(world.deps, outsider(), m._id, null))).message).toBe(missing.message);
  });

  it("answers not_found for a mention of an archived project", async () => {
    const m = await world.seedMention(projectId);
    await world.deps.collections.projects.insertOne({ _id: projectId, workspaceId: "wsp_1", status: "archived", timezone: "UTC", updatedAt: world.clock.now() });
    expect((await refusalOf(getMention(world.deps, viewer(), m._id))).code).toBe("not_found");
  });

  it("sets the status with a history entry and a mention.updated event in the same commit", async () => {
    const m = await world.seedMention(projectId);
    world.clock.advance(5000);
    const done = await updateMentionStatus(world.deps, editor(), m._id, "follow_up");
    expect(done).toMatchObject({ status: "follow_up", updatedAt: world.clock.now(), _v: 2 });
    expect(done.history).toEqual([{ field: "status", from: "open", to: "follow_up", byUserId: "usr_ed", at: world.clock.now() }]);
    const events = await world.events();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "mention.updated",
      topic: MENTION_TOPIC,
      key: projectId,
      subject: m._id,
      data: { mentionId: m._id, projectId, workspaceId: "wsp_1", fields: ["status"], status: "follow_up", categoryId: "", byUserId: "usr_ed" },
    });
  });

  it("records nothing when the status does not change", async () => {
    const m = await world.seedMention(projectId);
    const same = await updateMentionStatus(world.deps, editor(), m._id, "open");
    expect(same).toMatchObject({ _v: 1, history: [] });
    expect(await world.events()).toEqual([]);
  });

  it("refuses an unknown status naming the field", async () => {
    const m = await world.seedMention(projectId);
    const refusal = await refusalOf(updateMentionStatus(world.deps, editor(), m._id, "closed"));
    expect(refusal.code).toBe("validation_failed");
    expect(refusal.errors).toEqual([expect.objectContaining({ path: "status" })]);
  });

  it("refuses a viewer's triage as forbidden", async () => {
    const m = await world.seedMention(projectId);
    expect((await refusalOf(updateMentionStatus(world.deps, viewer(), m._id, "done"))).code).toBe("forbidden");
    expect((await refusalOf(categorizeMention(world.deps, viewer(), m._id, null))).code).toBe("forbidden");
  });

  it("keeps only the last 100 history entries", async () => {
    const m = await world.seedMention(projectId);
    for (let i = 0; i < MAX_HISTORY + 5; i++) await updateMentionStatus(world.deps, editor(), m._id, i % 2 === 0 ? "done" : "open");
    const read = await getMention(world.deps, viewer(), m._id);
    expect(read.history).toHaveLength(MAX_HISTORY);
    expect(read.history.at(-1)).toMatchObject({ from: "open", to: "done" });
  });

  it("wins over a concurrent change by reading again instead of overwriting it", async () => {
    const m = await world.seedMention(projectId);
    const other = world.replica();
    await Promise.all([updateMentionStatus(world.deps, editor(), m._id, "done"), categorizeMention(other, editor(), m._id, null)]);
    const category = await createCategory(world.deps, editor(), { projectId, name: "Leads" });
    await Promise.all([updateMentionStatus(world.deps, editor(), m._id, "follow_up"), categorizeMention(other, editor(), m._id, category._id)]);
    const read = await getMention(world.deps, viewer(), m._id);
    expect(read).toMatchObject({ status: "follow_up", categoryId: category._id });
    expect(read.history.map((h) => h.field).sort()).toEqual(["categoryId", "status", "status"]);
  });

  it("categorizes and clears with history entries and events", async () => {
    const m = await world.seedMention(projectId);
    const leads = await createCategory(world.deps, editor(), { projectId, name: "Leads" });
    const put = await categorizeMention(world.deps, editor(), m._id, leads._id);
    expect(put.categoryId).toBe(leads._id);
    const cleared = await categorizeMention(world.deps, editor(), m._id, "");
    expect(cleared.categoryId).toBeUndefined();
    expect(cleared.history.map((h) => [h.field, h.from, h.to])).toEqual([
      ["categoryId", "", leads._id],
      ["categoryId", leads._id, ""],
    ]);
    const events = (await world.events()).filter((e) => e.type === "mention.updated");
    expect(events.map((e) => (e.data as { categoryId: string; fields: string[] }).categoryId)).toEqual([leads._id, ""]);
    expect(events.every((e) => JSON.stringify((e.data as { fields: string[] }).fields) === '["categoryId"]')).toBe(true);
    expect((await categorizeMention(world.deps, editor(), m._id, null))._v).toBe(cleared._v);
  });

  it("refuses a category of another project, or a missing one, naming categoryId", async () => {
    const m = await world.seedMention(projectId);
    const foreign = await createCategory(world.deps, world.caller({ [otherProject]: "editor" }), { projectId: otherProject, name: "Theirs" });
    for (const id of [foreign._id, "cat_01JNOSUCHCATEGORY000000000"]) {
      const refusal = await refusalOf(categorizeMention(world.deps, editor(), m._id, id));
      expect(refusal.code).toBe("validation_failed");
      expect(refusal.errors).toEqual([expect.objectContaining({ path: "categoryId" })]);
    }
    const tooLong = await refusalOf(categorizeMention(world.deps, editor(), m._id, "c".repeat(65)));
    expect(tooLong.errors).toEqual([expect.objectContaining({ path: "categoryId" })]);
    expect((await getMention(world.deps, viewer(), m._id)).categoryId).toBeUndefined();
  });
});
