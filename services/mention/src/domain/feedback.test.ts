import { MENTION_TOPIC } from "../events";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { rateMention } from "./feedback";
import { ingestPosts } from "./ingest";
import { getMention } from "./mentions";

// rate_mention in the domain: the rating is a mention write (history, event, change number) that teaches
// the project's model in the same commit; similar mentions move in the background pass, awaited through
// the rescore queue (never a sleep); another project's model and scores never move.

describe("rating a mention's relevance", () => {
  let world: MentionWorld;
  let projectId: string;
  let otherProject: string;
  beforeEach(async () => {
    world = await openMentionWorld();
    projectId = await world.newProject();
    otherProject = await world.newProject();
    await world.addKeyword(projectId, "Linear");
    await world.addKeyword(otherProject, "Linear");
  });
  afterEach(async () => {
    // Background passes a test did not wait for finish before the store closes.
    await Promise.all([projectId, otherProject].map((p) => world.deps.relevance.rescores.settled(p)));
    await world.close();
  });

  const editor = (p = projectId) => world.caller({ [p]: "editor" }, { userId: "usr_ed" });
  const TEXTS = {
    product: ["Moved our sprint board to Linear, the cycles view is great", "Linear cycles keep our sprint honest", "Filed the bug in Linear, sprint triage done"],
    maths: ["Solving a linear equation for homework", "the linear equation has two unknowns", "graph each linear equation below"],
    unrated: ["Planning the next sprint in Linear", "Is this linear equation solvable"],
  };

  /** The posts ingested in both projects; the mentions by text, per project. */
  const ingestAll = async () => {
    const texts = [...TEXTS.product, ...TEXTS.maths, ...TEXTS.unrated];
    await ingestPosts(world.deps, [...texts.map((text) => world.post(projectId, { text })), ...texts.map((text) => world.post(otherProject, { text }))]);
    const all = await world.deps.collections.mentions.find({});
    const of = (p: string) => new Map(all.filter((m) => m.projectId === p).map((m) => [m.text, m]));
    return { ours: of(projectId), theirs: of(otherProject) };
  };

  it("records the rating with a history entry and a mention.updated event, and rescores the mention in the same commit", async () => {
    const { ours } = await ingestAll();
    const m = ours.get(TEXTS.product[0]!)!;
    expect(m.relevance).toMatchObject({ label: "uncertain", model: expect.stringMatching(/^nb1\.0\./) });
    world.clock.advance(1000);
    const rated = await rateMention(world.deps, editor(), m._id, { relevant: true, reason: "our product" });
    expect(rated.feedback).toEqual({ relevant: true, reason: "our product", byUserId: "usr_ed", at: world.clock.now() });
    expect(rated.history).toEqual([{ field: "feedback", from: "", to: "relevant", byUserId: "usr_ed", at: world.clock.now() }]);
    expect(rated.relevance!.model).toMatch(/^nb1\.1\./);
    expect(rated.relevance!.score).toBeGreaterThan(m.relevance!.score);
    expect(rated.changeSeq).toBeGreaterThan(m.changeSeq!);
    const updated = (await world.events()).filter((e) => e.type === "mention.updated");
    expect(updated).toHaveLength(1);
    expect(updated[0]).toMatchObject({ topic: MENTION_TOPIC, key: projectId, data: { mentionId: m._id, fields: ["feedback", "relevance"], byUserId: "usr_ed" } });
    expect(await world.deps.collections.relevanceModels.findById(projectId)).toMatchObject({ revision: 1, relevant: 1, irrelevant: 0 });
  });

  it("replaces an earlier rating, forgetting it in the model, and records nothing for the same rating again", async () => {
    const { ours } = await ingestAll();
    const m = ours.get(TEXTS.product[0]!)!;
    await rateMention(world.deps, editor(), m._id, { relevant: true });
    const again = await rateMention(world.deps, editor(), m._id, { relevant: true });
    expect(again.history).toHaveLength(1);
    const flipped = await rateMention(world.deps, editor(), m._id, { relevant: false, reason: "a maths post after all" });
    expect(flipped.feedback).toMatchObject({ relevant: false, reason: "a maths post after all" });
    expect(flipped.history.map((h) => [h.from, h.to])).toEqual([["", "relevant"], ["relevant", "irrelevant"]]);
    const model = await world.deps.collections.relevanceModels.findById(projectId);
    expect(model).toMatchObject({ revision: 2, relevant: 0, irrelevant: 1 });
    expect(Object.values(model!.counts).every(([rel]) => rel === 0)).toBe(true);
    expect((await getMention(world.deps, editor(), m._id)).feedback?.relevant).toBe(false);
  });

  it("moves the scores of similar mentions in the background, naming what moved them, and never another project's", async () => {
    const { ours, theirs } = await ingestAll();
    for (const t of TEXTS.product) await rateMention(world.deps, editor(), ours.get(t)!._id, { relevant: true });
    for (const t of TEXTS.maths) await rateMention(world.deps, editor(), ours.get(t)!._id, { relevant: false });
    await world.deps.relevance.rescores.settled(projectId);
    const after = async (text: string, p = projectId) => (await world.deps.collections.mentions.findOne({ projectId: p, text }))!.relevance!;
    const sprint = await after(TEXTS.unrated[0]!);
    const equation = await after(TEXTS.unrated[1]!);
    expect(sprint.score).toBeGreaterThan(ours.get(TEXTS.unrated[0]!)!.relevance!.score + 0.2);
    expect(sprint.label).toBe("relevant");
    expect(sprint.reasons.map((r) => r.feature)).toContain("word:sprint");
    expect(equation.label).toBe("irrelevant");
    expect(equation.reasons.map((r) => r.feature)).toContain("word:equation");
    // Both rescored by the learned model; a later pass that moves a score by less than MIN_MOVE (each pass
    // also relearns from the unrated mentions) leaves the version it was stored with.
    expect(Number(equation.model.split(".")[1])).toBeGreaterThan(0);
    // Tenancy: the other project's mentions keep the scores and model they were stored with.
    for (const [text, m] of theirs) expect(await after(text, otherProject)).toEqual(m.relevance);
    expect(await world.deps.collections.relevanceModels.findById(otherProject)).toBeNull();
  });

  it("rescores the last 30 days in the background when the project's description or a keyword's aliases change, and only that project", async () => {
    const { ours, theirs } = await ingestAll();
    const sprint = ours.get(TEXTS.unrated[0]!)!.relevance!;
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", fields: ["description"], project: { description: "Sprint planning and issue tracking" } });
    await world.deps.relevance.rescores.settled(projectId);
    const after = async (text: string, p = projectId) => (await world.deps.collections.mentions.findOne({ projectId: p, text }))!.relevance!;
    const described = await after(TEXTS.unrated[0]!);
    expect(described.score).toBeGreaterThan(sprint.score);
    expect(described.model).not.toBe(sprint.model);
    expect(described.reasons.map((r) => r.feature)).toContain("word:sprint");
    // The same description again changes nothing.
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", fields: ["name"], project: { description: "Sprint planning and issue tracking" } });
    await world.deps.relevance.rescores.settled(projectId);
    expect(await after(TEXTS.unrated[0]!)).toEqual(described);
    // An exclusion's words weigh against: a keyword update naming excludedTerms rescores.
    const keyword = (await world.deps.collections.keywords.find({ projectId }))[0]!;
    await world.keywordEvent("keyword.updated", { ...keyword, keywordId: keyword._id, workspaceId: "wsp_1", excludedTerms: ["equation solver"], fields: ["excludedTerms"] });
    await world.deps.relevance.rescores.settled(projectId);
    expect((await after(TEXTS.unrated[1]!)).score).toBeLessThan(ours.get(TEXTS.unrated[1]!)!.relevance!.score);
    for (const [text, m] of theirs) expect(await after(text, otherProject)).toEqual(m.relevance);
  });

  it("rescores when a keyword is added: its exclusions weigh against at once", async () => {
    const { ours } = await ingestAll();
    const keyword = (await world.deps.collections.keywords.find({ projectId }))[0]!;
    await world.keywordEvent("keyword.created", { ...keyword, keywordId: "kw_added", workspaceId: "wsp_1", value: "Linear app", aliases: [], excludedTerms: ["equation solver"], fields: [] });
    await world.deps.relevance.rescores.settled(projectId);
    const rescored = (await world.deps.collections.mentions.findOne({ projectId, text: TEXTS.unrated[1]! }))!.relevance!;
    expect(rescored.score).toBeLessThan(ours.get(TEXTS.unrated[1]!)!.relevance!.score);
  });

  it("scores mentions ingested after ratings with the learned model at once", async () => {
    const { ours } = await ingestAll();
    for (const t of TEXTS.product) await rateMention(world.deps, editor(), ours.get(t)!._id, { relevant: true });
    for (const t of TEXTS.maths) await rateMention(world.deps, editor(), ours.get(t)!._id, { relevant: false });
    await ingestPosts(world.deps, [world.post(projectId, { text: "Linear sprint planning went well" }), world.post(otherProject, { text: "Linear sprint planning went well" })]);
    const fresh = await world.deps.collections.mentions.find({ text: "Linear sprint planning went well" });
    const byProject = new Map(fresh.map((m) => [m.projectId, m.relevance!]));
    expect(byProject.get(projectId)!.label).toBe("relevant");
    expect(byProject.get(projectId)!.model).toMatch(/^nb1\.6\./);
    expect(byProject.get(otherProject)!.label).toBe("uncertain");
  });

  it("keeps every rating of a burst in the model: racing ratings retry against the model's version", async () => {
    const { ours } = await ingestAll();
    const mentions = [...ours.values()];
    await Promise.all(mentions.map((m, i) => rateMention(world.deps, editor(), m._id, { relevant: i % 2 === 0 })));
    const model = await world.deps.collections.relevanceModels.findById(projectId);
    expect(model).toMatchObject({ revision: mentions.length, relevant: Math.ceil(mentions.length / 2), irrelevant: Math.floor(mentions.length / 2) });
  });

  it("numbers rescored mentions in the change feed without a mention.updated for them", async () => {
    const { ours } = await ingestAll();
    const unrated = ours.get(TEXTS.unrated[0]!)!;
    for (const t of TEXTS.product) await rateMention(world.deps, editor(), ours.get(t)!._id, { relevant: true });
    await world.deps.relevance.rescores.settled(projectId);
    const after = (await world.deps.collections.mentions.findById(unrated._id))!;
    expect(after.relevance!.score).not.toBe(unrated.relevance!.score);
    expect(after.changeSeq).toBeGreaterThan(unrated.changeSeq!);
    expect(after._v).toBeGreaterThan(unrated._v!);
    const updated = (await world.events()).filter((e) => e.type === "mention.updated");
    expect(updated.map((e) => e.subject).sort()).toEqual(TEXTS.product.map((t) => ours.get(t)!._id).sort());
  });

  it("scores a cold project from its description, kept from its project events, before any rating", async () => {
    await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", fields: ["description"], project: { id: projectId, description: "Linear, the issue tracker for software teams" } });
    await ingestPosts(world.deps, [world.post(projectId, { text: "Our software team moved every issue to Linear" }), world.post(otherProject, { text: "Our software team moved every issue to Linear" })]);
    const scored = await world.deps.collections.mentions.find({ text: "Our software team moved every issue to Linear" });
    const byProject = new Map(scored.map((m) => [m.projectId, m.relevance!]));
    expect(byProject.get(projectId)).toMatchObject({ label: "relevant", reasons: expect.arrayContaining([expect.objectContaining({ feature: "word:software" })]) });
    expect(byProject.get(otherProject)!.score).toBeLessThan(byProject.get(projectId)!.score);
    expect(byProject.get(projectId)!.model).not.toBe(byProject.get(otherProject)!.model);
  });

  it("refuses bad input naming the field, a viewer as forbidden and a non-member as not_found", async () => {
    const m = await world.seedMention(projectId);
    for (const [input, path] of [
      [{}, "relevant"],
      [{ relevant: "yes" }, "relevant"],
      [{ relevant: true, reason: "x".repeat(501) }, "reason"],
      [{ relevant: true, reason: 5 }, "reason"],
    ] as const) {
      const refusal = await refusalOf(rateMention(world.deps, editor(), m._id, input));
      expect(refusal.code).toBe("validation_failed");
      expect(refusal.errors).toEqual([expect.objectContaining({ path })]);
    }
    expect((await refusalOf(rateMention(world.deps, world.caller({ [projectId]: "viewer" }), m._id, { relevant: true }))).code).toBe("forbidden");
    expect((await refusalOf(rateMention(world.deps, editor(otherProject), m._id, { relevant: true }))).code).toBe("not_found");
    expect(await world.deps.collections.relevanceModels.findById(projectId)).toBeNull();
  });
});
