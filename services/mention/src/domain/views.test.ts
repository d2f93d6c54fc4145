import { readAll } from "../read-test-support";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { createMentionView, deleteMentionView, getMentionView, listMentionViews, updateMentionView } from "./views";

describe("saved mention views", () => {
  let world: MentionWorld;
  const projectId = "prj_01JVIEWS00000000000000001";
  const otherProject = "prj_01JVIEWS00000000000000002";
  beforeEach(async () => {
    world = await openMentionWorld();
  });
  afterEach(() => world.close());

  const editor = () => world.caller({ [projectId]: "editor" });
  const viewer = () => world.caller({ [projectId]: "viewer" });
  const outsider = () => world.caller({ [otherProject]: "owner" });
  const names = async () => (await readAll((cursor) => listMentionViews(world.deps, viewer(), { projectId, limit: 2, cursor }))).map((v) => v.name);

  it("creates views with checked filters, after the last one, and lists them by order then creation", async () => {
    const a = await createMentionView(world.deps, editor(), { projectId, name: " To answer ", filters: { status: ["open"], q: "  acme  ", since: "2026-11-01T00:00:00Z" } });
    expect(a).toMatchObject({ name: "To answer", order: 0, filters: { status: ["open"], q: "acme", since: "2026-11-01T00:00:00Z" } });
    world.clock.advance(1000);
    await createMentionView(world.deps, editor(), { projectId, name: "Angry", filters: { sentiment: ["negative"] } });
    await createMentionView(world.deps, editor(), { projectId, name: "First", filters: {}, order: 0 });
    expect(await names()).toEqual(["To answer", "First", "Angry"]);
  });

  it("updates name, order and filters (replaced whole), and changes nothing for the same input", async () => {
    const v = await createMentionView(world.deps, editor(), { projectId, name: "To answer", filters: { status: ["open"] } });
    const same = await updateMentionView(world.deps, editor(), v._id, { name: "To answer", filters: { status: ["open"] } });
    expect(same._v).toBe(1);
    const changed = await updateMentionView(world.deps, editor(), v._id, { filters: { source: ["reddit"] }, order: 3 });
    expect(changed).toMatchObject({ name: "To answer", order: 3, filters: { source: ["reddit"] }, _v: 2 });
    expect(changed.filters.status).toBeUndefined();
    expect((await getMentionView(world.deps, viewer(), v._id)).filters).toEqual({ source: ["reddit"] });
  });

  it("reads a view saved when author was one value as a list of that author", async () => {
    const v = await createMentionView(world.deps, editor(), { projectId, name: "Alice", filters: { author: ["alice"] } });
    await world.deps.collections.views.updateOne({ _id: v._id }, { $set: { filters: { author: "alice" } } });
    expect((await getMentionView(world.deps, viewer(), v._id)).filters).toEqual({ author: ["alice"] });
    expect((await readAll((cursor) => listMentionViews(world.deps, viewer(), { projectId, cursor }))).map((x) => x.filters)).toEqual([{ author: ["alice"] }]);
  });

  it("deletes a view", async () => {
    const v = await createMentionView(world.deps, editor(), { projectId, name: "Old", filters: {} });
    expect((await deleteMentionView(world.deps, editor(), v._id))._id).toBe(v._id);
    expect(await names()).toEqual([]);
    expect((await refusalOf(getMentionView(world.deps, viewer(), v._id))).code).toBe("not_found");
  });

  it("replays a create with the same idempotency key", async () => {
    const first = await createMentionView(world.deps, editor(), { projectId, name: "A", filters: {} }, "view-key-123456");
    const again = await createMentionView(world.deps, editor(), { projectId, name: "A", filters: {} }, "view-key-123456");
    expect(again._id).toBe(first._id);
    expect(await names()).toEqual(["A"]);
  });

  it("refuses bad fields naming each, filters validated as list_mentions validates them", async () => {
    const refusal = await refusalOf(
      createMentionView(world.deps, editor(), { projectId, name: "", filters: { status: ["shut"], source: ["myspace"], colour: "red", since: "now" }, order: 2_000_000 }),
    );
    expect(refusal.errors.map((e) => e.path).sort()).toEqual(["filters.colour", "filters.since", "filters.source.0", "filters.status.0", "name", "order"]);
    const v = await createMentionView(world.deps, editor(), { projectId, name: "Ok", filters: {} });
    const update = await refusalOf(updateMentionView(world.deps, editor(), v._id, { filters: { since: "2026-11-02T00:00:00Z", until: "2026-11-01T00:00:00Z" } }));
    expect(update.errors.map((e) => e.path)).toEqual(["filters.until"]);
    // Filters left out default to none: the view lists every mention.
    expect((await createMentionView(world.deps, editor(), { projectId, name: "No filters", filters: undefined })).filters).toEqual({});
  });

  it("refuses a viewer's writes as forbidden", async () => {
    expect((await refusalOf(createMentionView(world.deps, viewer(), { projectId, name: "A", filters: {} }))).code).toBe("forbidden");
    const v = await createMentionView(world.deps, editor(), { projectId, name: "A", filters: {} });
    expect((await refusalOf(updateMentionView(world.deps, viewer(), v._id, { name: "B" }))).code).toBe("forbidden");
    expect((await refusalOf(deleteMentionView(world.deps, viewer(), v._id))).code).toBe("forbidden");
  });

  it("answers not_found for another project's view exactly as for a missing one", async () => {
    const v = await createMentionView(world.deps, editor(), { projectId, name: "A", filters: {} });
    const missing = await refusalOf(getMentionView(world.deps, outsider(), "view_01JNOSUCHVIEW00000000000000"));
    for (const refusal of [
      await refusalOf(getMentionView(world.deps, outsider(), v._id)),
      await refusalOf(updateMentionView(world.deps, outsider(), v._id, { name: "Mine" })),
      await refusalOf(deleteMentionView(world.deps, outsider(), v._id)),
    ]) {
      expect(refusal.code).toBe("not_found");
      expect(refusal.message).toBe(missing.message);
    }
    expect((await refusalOf(listMentionViews(world.deps, outsider(), { projectId }))).code).toBe("not_found");
  });
});
