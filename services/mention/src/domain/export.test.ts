import type { MentionFilterInput } from "../fields";
import { readAll } from "../read-test-support";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { exportMentions } from "./export";
import { listMentions, updateMentionStatus } from "./mentions";

describe("export_mentions", () => {
  let world: MentionWorld;
  const projectId = "prj_01JEXPORT0000000000000001";
  const otherProject = "prj_01JEXPORT0000000000000002";
  beforeEach(async () => {
    world = await openMentionWorld();
    const base = world.clock.now().getTime();
    for (let i = 0; i < 2300; i++) {
      await world.seedMention(projectId, {
        publishedAt: new Date(base - 60_000 - Math.floor(i / 2) * 1000),
        status: i % 3 === 0 ? "done" : "open",
        source: i % 4 === 0 ? "reddit" : "x",
      });
    }
  });
  afterEach(() => world.close());

  const viewer = () => world.caller({ [projectId]: "viewer" });
  const editor = () => world.caller({ [projectId]: "editor" });
  const exportPages = (filters: MentionFilterInput, between?: (n: number) => Promise<void>) =>
    readAll(async (cursor) => {
      const page = await exportMentions(world.deps, viewer(), { projectId, filters, cursor });
      expect(page.items.length).toBeLessThanOrEqual(1000);
      return page;
    }, between);
  const listPages = (filters: MentionFilterInput) => readAll((cursor) => listMentions(world.deps, viewer(), { projectId, filters, limit: 100, cursor }));

  it.each<[string, MentionFilterInput]>([
    ["no filter", {}],
    ["status and source", { status: ["open"], source: ["x"] }],
  ])("concatenated pages equal the paged list (%s)", async (_what, filters) => {
    const exported = await exportPages(filters);
    const listed = await listPages(filters);
    expect(exported.length).toBe(listed.length);
    expect(exported.map((m) => m._id)).toEqual(listed.map((m) => m._id));
  });

  it("leaves out mentions matched after the export began, and lists one triaged meanwhile once", async () => {
    const before = await listPages({});
    const arrived: string[] = [];
    const exported = await exportPages({}, async () => {
      world.clock.advance(1000);
      const newest = await world.seedMention(projectId, { publishedAt: world.clock.now() });
      const older = await world.seedMention(projectId, { publishedAt: new Date(before.at(-1)!.publishedAt.getTime() - 1000) });
      arrived.push(newest._id, older._id);
      // Triage changes neither the order key nor the snapshot: the mention stays exactly where it was.
      await updateMentionStatus(world.deps, editor(), before.at(-5)!._id, "follow_up");
    });
    expect(arrived.length).toBeGreaterThan(0);
    expect(exported.map((m) => m._id)).toEqual(before.map((m) => m._id));
  });

  it("refuses a cursor it did not make, or one of another project's export, naming cursor", async () => {
    const first = await exportMentions(world.deps, viewer(), { projectId, limit: 10 });
    expect(first.nextCursor).not.toBeNull();
    const forged = [
      "garbage",
      Buffer.from("[1,2]").toString("base64url"),
      Buffer.from(JSON.stringify({ p: projectId, t: "yesterday", a: "x" })).toString("base64url"),
      Buffer.from(JSON.stringify({ p: projectId, t: new Date().toISOString(), a: "not-a-store-cursor" })).toString("base64url"),
    ];
    for (const cursor of forged) {
      expect((await refusalOf(exportMentions(world.deps, viewer(), { projectId, cursor }))).errors.map((e) => e.path)).toEqual(["cursor"]);
    }
    const outsiderProject = world.caller({ [projectId]: "viewer", [otherProject]: "viewer" });
    const refusal = await refusalOf(exportMentions(world.deps, outsiderProject, { projectId: otherProject, cursor: first.nextCursor! }));
    expect(refusal.errors.map((e) => e.path)).toEqual(["cursor"]);
  });

  it("refuses a page size over 1,000 naming limit, and a non-member as not_found", async () => {
    expect((await refusalOf(exportMentions(world.deps, viewer(), { projectId, limit: 1001 }))).errors.map((e) => e.path)).toEqual(["limit"]);
    const outsider = world.caller({ [otherProject]: "owner" });
    const hidden = await refusalOf(exportMentions(world.deps, outsider, { projectId }));
    const missing = await refusalOf(exportMentions(world.deps, outsider, { projectId: "prj_01JNOSUCHPROJECT0000000000" }));
    expect(hidden.code).toBe("not_found");
    expect(hidden.message).toBe(missing.message);
  });
});
