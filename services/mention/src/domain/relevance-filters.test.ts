import fc from "fast-check";
import type { MentionFilterInput } from "../fields";
import { readAll } from "../read-test-support";
import type { MentionDoc } from "../store";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { exportMentions } from "./export";
import { listMentions } from "./mentions";
import { createMentionView } from "./views";

// The relevance filters and sort=relevance over the one filter path (mentionQuery), on the embedded store.
// A mention stored before scoring (no relevance) counts as uncertain with score 0.5 for the filters and
// sorts after every scored mention.

type Relevance = { score: number; label: "relevant" | "uncertain" | "irrelevant"; reasons: []; model: string };
const scored = (score: number): Relevance => ({ score, label: score >= 0.7 ? "relevant" : score >= 0.4 ? "uncertain" : "irrelevant", reasons: [], model: "m1" });

describe("relevance filters and sort", () => {
  let world: MentionWorld;
  const projectId = "prj_01JRELEVANCEFILTERS0000001";
  const otherProject = "prj_01JRELEVANCEFILTERS0000002";
  const HOUR = 3_600_000;
  let t0: number;
  let m: Record<"high" | "mid" | "low" | "unscored" | "tie", MentionDoc>;

  const seed = (project: string, hoursAgo: number, relevance?: Relevance) =>
    world.seedMention(project, { publishedAt: new Date(t0 - hoursAgo * HOUR), ...(relevance && { relevance }) } as Partial<MentionDoc>);

  beforeAll(async () => {
    world = await openMentionWorld();
    t0 = world.clock.now().getTime();
    m = {
      high: await seed(projectId, 3, scored(0.9)),
      mid: await seed(projectId, 1, scored(0.55)),
      low: await seed(projectId, 2, scored(0.1)),
      unscored: await seed(projectId, 0.5),
      tie: await seed(projectId, 4, scored(0.9)),
    };
    await seed(otherProject, 0.1, scored(1));
  });
  afterAll(() => world.close());

  const viewer = () => world.caller({ [projectId]: "viewer" });
  const nameOf = (id: string) => Object.entries(m).find(([, d]) => d._id === id)?.[0] ?? id;
  const names = async (filters: MentionFilterInput, extra: { viewId?: string; sort?: string } = {}) => {
    const page = await listMentions(world.deps, viewer(), { projectId, filters, ...extra });
    return page.items.map((x) => nameOf(x._id));
  };

  it.each<[string, MentionFilterInput, string[]]>([
    ["minRelevance above 0.5 drops unscored mentions", { minRelevance: 0.6 }, ["high", "tie"]],
    ["minRelevance at 0.5 keeps unscored mentions (they count as 0.5)", { minRelevance: 0.5 }, ["unscored", "mid", "high", "tie"]],
    ["minRelevance is inclusive", { minRelevance: 0.55 }, ["mid", "high", "tie"]],
    ["minRelevance 0 keeps everything", { minRelevance: 0 }, ["unscored", "mid", "low", "high", "tie"]],
    ["relevance label", { relevance: ["irrelevant"] }, ["low"]],
    ["uncertain includes unscored mentions", { relevance: ["uncertain"] }, ["unscored", "mid"]],
    ["several labels", { relevance: ["relevant", "irrelevant"] }, ["low", "high", "tie"]],
    ["both members AND", { relevance: ["uncertain"], minRelevance: 0.52 }, ["mid"]],
  ])("%s", async (_name, filters, expected) => {
    expect(await names(filters)).toEqual(expected);
  });

  it("refuses a bound outside 0..1, an unknown label or sort, naming the field", async () => {
    const fieldsOf = async (input: Omit<Parameters<typeof listMentions>[2], "projectId">) =>
      (await refusalOf(listMentions(world.deps, viewer(), { projectId, ...input }))).errors.map((e) => e.path);
    expect(await fieldsOf({ filters: { minRelevance: 2 } })).toEqual(["minRelevance"]);
    expect(await fieldsOf({ filters: { minRelevance: -0.1 } })).toEqual(["minRelevance"]);
    expect(await fieldsOf({ filters: { relevance: ["bogus"] } })).toEqual(["relevance.0"]);
    expect(await fieldsOf({ sort: "loudest" })).toEqual(["sort"]);
  });

  it("sort=relevance: highest score first, then newest, unscored last; a saved view's bound applies", async () => {
    expect(await names({}, { sort: "relevance" })).toEqual(["high", "tie", "mid", "low", "unscored"]);
    const view = await createMentionView(world.deps, world.caller({ [projectId]: "editor" }), { projectId, name: "Signal", filters: { minRelevance: 0.6 } });
    expect(await names({}, { viewId: view._id, sort: "relevance" })).toEqual(["high", "tie"]);
    expect(view.filters).toEqual({ minRelevance: 0.6 });
  });

  it("export selects with the same bound", async () => {
    const page = await exportMentions(world.deps, viewer(), { projectId, filters: { minRelevance: 0.6 } });
    expect(page.items.map((x) => nameOf(x._id)).sort()).toEqual(["high", "tie"]);
  });

  it("a newest-first cursor is refused by the relevance order, naming cursor", async () => {
    const first = await listMentions(world.deps, viewer(), { projectId, limit: 1 });
    await expect(refusalOf(listMentions(world.deps, viewer(), { projectId, limit: 1, sort: "relevance", cursor: first.nextCursor! }))).resolves.toMatchObject({
      errors: [{ path: "cursor" }],
    });
  });

  it("pages the relevance order exactly: every mention once, in order, at any page size (property)", async () => {
    const paged = await openMentionWorld();
    try {
      const project = "prj_01JRELEVANCEPAGING00000001";
      const start = paged.clock.now().getTime();
      // Few distinct scores and hours, so ties of score and of publishedAt are common.
      const rows = fc.sample(fc.record({ score: fc.option(fc.constantFrom(0.2, 0.5, 0.8), { nil: undefined }), hour: fc.integer({ min: 0, max: 5 }) }), { numRuns: 40, seed: 32 });
      for (const r of rows) {
        await paged.seedMention(project, { publishedAt: new Date(start - r.hour * HOUR), ...(r.score !== undefined && { relevance: scored(r.score) }) } as Partial<MentionDoc>);
      }
      const caller = paged.caller({ [project]: "viewer" });
      const all = await listMentions(paged.deps, caller, { projectId: project, sort: "relevance", limit: 100 });
      const key = (d: MentionDoc) => [(d as { relevance?: Relevance }).relevance?.score ?? -1, d.publishedAt.getTime(), d._id] as const;
      const expected = [...all.items].sort((a, b) => {
        const [sa, pa, ia] = key(a as MentionDoc);
        const [sb, pb, ib] = key(b as MentionDoc);
        return sb - sa || pb - pa || (ib < ia ? -1 : ib > ia ? 1 : 0);
      });
      expect(all.items.map((x) => x._id)).toEqual(expected.map((x) => x._id));
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 7 }), async (limit) => {
          const items = await readAll((cursor) => listMentions(paged.deps, caller, { projectId: project, sort: "relevance", limit, ...(cursor && { cursor }) }));
          expect(items.map((x) => x._id)).toEqual(expected.map((x) => x._id));
        }),
        { seed: 32, numRuns: 7 },
      );
    } finally {
      await paged.close();
    }
  });
});
