import { knowProject, readAll } from "../read-test-support";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { CHANGE_SEQUENCES } from "../store";
import { getMentionAnalytics } from "./analytics";
import { createCategory, DELETE_BATCH, deleteCategory, getCategory, listCategories, updateCategory } from "./categories";
import { categorizeMention, getMention, listMentions } from "./mentions";

describe("categories", () => {
  let world: MentionWorld;
  const projectId = "prj_01JCATEGORIES0000000000001";
  const otherProject = "prj_01JCATEGORIES0000000000002";
  beforeEach(async () => {
    world = await openMentionWorld();
  });
  afterEach(() => world.close());

  const editor = () => world.caller({ [projectId]: "editor" });
  const viewer = () => world.caller({ [projectId]: "viewer" });
  const outsider = () => world.caller({ [otherProject]: "owner" });
  const names = async () => (await readAll((cursor) => listCategories(world.deps, viewer(), { projectId, limit: 2, cursor }))).map((c) => c.name);

  it("creates categories after the last one and lists them by order, then creation, page by page", async () => {
    const a = await createCategory(world.deps, editor(), { projectId, name: " Leads ", description: "People who may buy", icon: "💰" });
    expect(a).toMatchObject({ name: "Leads", description: "People who may buy", icon: "💰", order: 0, workspaceId: "wsp_1" });
    world.clock.advance(1000);
    const b = await createCategory(world.deps, editor(), { projectId, name: "Complaints" });
    expect(b).toMatchObject({ order: 1, description: "", icon: "" });
    await createCategory(world.deps, editor(), { projectId, name: "Press", order: 0 });
    await createCategory(world.deps, editor(), { projectId, name: "Later" });
    expect(await names()).toEqual(["Leads", "Press", "Complaints", "Later"]);
    await updateCategory(world.deps, editor(), b._id, { order: 0, name: "Support" });
    expect(await names()).toEqual(["Leads", "Support", "Press", "Later"]);
  });

  it("replays a create with the same idempotency key instead of making a second category", async () => {
    const first = await createCategory(world.deps, editor(), { projectId, name: "Leads" }, "idem-key-12345");
    const again = await createCategory(world.deps, editor(), { projectId, name: "Leads" }, "idem-key-12345");
    expect(again._id).toBe(first._id);
    expect(await names()).toEqual(["Leads"]);
  });

  it("refuses bad fields naming each", async () => {
    const create = await refusalOf(createCategory(world.deps, editor(), { projectId: "", name: "", description: "d".repeat(201), icon: "🙂".repeat(11), order: -1 }));
    expect(create.errors.map((e) => e.path).sort()).toEqual(["description", "icon", "name", "order", "projectId"]);
    const c = await createCategory(world.deps, editor(), { projectId, name: "Leads" });
    const update = await refusalOf(updateCategory(world.deps, editor(), c._id, { name: "n".repeat(51), order: 1.5 }));
    expect(update.errors.map((e) => e.path).sort()).toEqual(["name", "order"]);
    expect((await refusalOf(listCategories(world.deps, viewer(), { projectId, limit: 0 }))).errors.map((e) => e.path)).toEqual(["limit"]);
    expect((await refusalOf(listCategories(world.deps, viewer(), { projectId, cursor: "junk" }))).errors.map((e) => e.path)).toEqual(["cursor"]);
  });

  it("changes nothing when an update repeats what is stored", async () => {
    const c = await createCategory(world.deps, editor(), { projectId, name: "Leads", icon: "x" });
    const same = await updateCategory(world.deps, editor(), c._id, { name: "Leads", icon: "x", order: 0 });
    expect(same._v).toBe(1);
  });

  it("refuses a viewer's writes as forbidden", async () => {
    expect((await refusalOf(createCategory(world.deps, viewer(), { projectId, name: "Leads" }))).code).toBe("forbidden");
    const c = await createCategory(world.deps, editor(), { projectId, name: "Leads" });
    expect((await refusalOf(updateCategory(world.deps, viewer(), c._id, { name: "Sales" }))).code).toBe("forbidden");
    expect((await refusalOf(deleteCategory(world.deps, viewer(), c._id))).code).toBe("forbidden");
  });

  it("answers not_found for another project's category exactly as for a missing one", async () => {
    const c = await createCategory(world.deps, editor(), { projectId, name: "Leads" });
    const missing = await refusalOf(getCategory(world.deps, outsider(), "cat_01JNOSUCHCATEGORY000000000"));
    for (const refusal of [
      await refusalOf(getCategory(world.deps, outsider(), c._id)),
      await refusalOf(updateCategory(world.deps, outsider(), c._id, { name: "Mine" })),
      await refusalOf(deleteCategory(world.deps, outsider(), c._id)),
    ]) {
      expect(refusal.code).toBe("not_found");
      expect(refusal.message).toBe(missing.message);
    }
    expect((await refusalOf(createCategory(world.deps, outsider(), { projectId, name: "Mine" }))).code).toBe("not_found");
    expect((await refusalOf(listCategories(world.deps, outsider(), { projectId }))).code).toBe("not_found");
  });

  it("uncategorizes a deleted category's mentions at once, in list, get and analytics", async () => {
    await knowProject(world, projectId);
    const leads = await createCategory(world.deps, editor(), { projectId, name: "Leads" });
    const kept = await createCategory(world.deps, editor(), { projectId, name: "Press" });
    const a = await world.seedMention(projectId);
    const b = await world.seedMention(projectId);
    await categorizeMention(world.deps, editor(), a._id, leads._id);
    await categorizeMention(world.deps, editor(), b._id, kept._id);
    const eventsBefore = (await world.events()).length;
    const deleted = await deleteCategory(world.deps, editor(), leads._id);
    expect(deleted._id).toBe(leads._id);
    expect(await names()).toEqual(["Press"]);
    expect((await getMention(world.deps, viewer(), a._id)).categoryId).toBeUndefined();
    expect((await getMention(world.deps, viewer(), b._id)).categoryId).toBe(kept._id);
    const none = await listMentions(world.deps, viewer(), { projectId, filters: { categoryId: ["none"] } });
    expect(none.items.map((m) => m._id)).toEqual([a._id]);
    expect((await listMentions(world.deps, viewer(), { projectId, filters: { categoryId: [leads._id] } })).items).toEqual([]);
    const analytics = await getMentionAnalytics(world.deps, viewer(), { projectId, groupBy: "category" });
    expect(analytics.totals).toEqual({ none: 1, [kept._id]: 1 });
    // The deletion is the category's: no mention.updated for the mentions it uncategorized.
    expect((await world.events()).length).toBe(eventsBefore);
    expect((await refusalOf(categorizeMention(world.deps, editor(), b._id, leads._id))).errors.map((e) => e.path)).toEqual(["categoryId"]);
  });

  it("uncategorizes many mentions in batches, deleting the category in the last commit", async () => {
    const leads = await createCategory(world.deps, editor(), { projectId, name: "Leads" });
    const count = DELETE_BATCH * 2 + 7;
    for (let i = 0; i < count; i++) await world.seedMention(projectId, { categoryId: leads._id });
    const commits: number[] = [];
    const commit = world.store.commit.bind(world.store);
    world.store.commit = async (writes) => {
      // Besides the project's change sequence, which every commit changing mentions moves on.
      commits.push(writes.filter((w) => w.collection !== CHANGE_SEQUENCES).length);
      return commit(writes);
    };
    await deleteCategory(world.deps, editor(), leads._id);
    expect(commits).toEqual([DELETE_BATCH, DELETE_BATCH, 8]);
    expect(await world.deps.collections.mentions.count({ categoryId: leads._id })).toBe(0);
    expect(await world.deps.collections.categories.findById(leads._id)).toBeNull();
  });

  it("takes back a categorization that lands after the delete swept past the mention", async () => {
    const leads = await createCategory(world.deps, editor(), { projectId, name: "Leads" });
    const m = await world.seedMention(projectId);
    // The categorization reads the category, then the delete runs to the end before it commits.
    const findById = world.deps.collections.categories.findById.bind(world.deps.collections.categories);
    let deleting: Promise<unknown> | undefined;
    world.deps.collections.categories.findById = async (id) => {
      const found = await findById(id);
      if (!deleting) {
        deleting = deleteCategory(world.replica(), editor(), leads._id);
        await deleting;
      }
      return found;
    };
    const refusal = await refusalOf(categorizeMention(world.deps, editor(), m._id, leads._id));
    expect(refusal.errors.map((e) => e.path)).toEqual(["categoryId"]);
    expect((await getMention(world.deps, viewer(), m._id)).categoryId).toBeUndefined();
  });
});
