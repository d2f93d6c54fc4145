import { openDigestWorld, type DigestWorld } from "../test-support";
import { INSTANT_SPACING_MS } from "./instant";
import { handleMentionsCreated } from "./mentions";
import { tick } from "./scheduler";

// Instant alerts: the first email on the first tick after a rule's first match, then at most one per rule
// every 15 minutes holding what arrived meanwhile; and the filters of a rule decide which mentions count.

const MINUTE = 60_000;

let world: DigestWorld;
afterEach(async () => world?.close());

const setUp = async () => {
  world = await openDigestWorld(new Date("2027-02-10T10:00:00Z"));
  const owner = await world.owner("ana@example.com");
  const { projectId } = await world.project(owner.workspaceId);
  return { owner, projectId };
};

describe("instant alerts", () => {
  it("emails the first match at once, then batches what arrives into one email per 15 minutes", async () => {
    const { owner, projectId } = await setUp();
    await world.rule(projectId, owner.workspaceId, { name: "Everything now", instant: true, digestEnabled: false });
    await world.mention(projectId, owner.workspaceId, { text: "Acme first" });
    await tick(world.deps);
    expect(world.sent.map((m) => m.subject)).toEqual(["Everything now for Launch: 1 new mention"]);

    for (const text of ["Acme second", "Acme third"]) {
      world.clock.advance(5 * MINUTE);
      await world.mention(projectId, owner.workspaceId, { text });
      await tick(world.deps);
    }
    expect(world.sent).toHaveLength(1);

    world.clock.advance(INSTANT_SPACING_MS - 10 * MINUTE);
    await tick(world.deps);
    expect(world.sent).toHaveLength(2);
    expect(world.sent[1]?.subject).toBe("Everything now for Launch: 2 new mentions");
    expect(world.sent[1]?.text).toContain("Acme second");
    expect(world.sent[1]?.text).toContain("Acme third");
    expect(world.sent[1]?.text).not.toContain("Acme first");

    world.clock.advance(INSTANT_SPACING_MS);
    await tick(world.deps);
    expect(world.sent).toHaveLength(2); // nothing new, nothing sent
  });

  it("keeps and queues each mention of a batch once, when the batch holds a repeat and is handed over again", async () => {
    const { owner, projectId } = await setUp();
    await world.rule(projectId, owner.workspaceId, { name: "Now", instant: true, digestEnabled: false });
    const a = world.mentionEvent(projectId, owner.workspaceId, { text: "Acme one" });
    const b = world.mentionEvent(projectId, owner.workspaceId, { text: "Acme two" });
    await handleMentionsCreated(world.deps, [a, b, a]);
    await handleMentionsCreated(world.deps, [b, a]);
    expect(await world.deps.collections.mentions.count({ projectId })).toBe(2);
    expect(await world.deps.collections.pending.count({})).toBe(2);
    await tick(world.deps);
    expect(world.sent.map((m) => m.subject)).toEqual(["Now for Launch: 2 new mentions"]);
  });

  it("sends one batch when two replicas tick at once", async () => {
    const { owner, projectId } = await setUp();
    await world.rule(projectId, owner.workspaceId, { name: "Now", instant: true, digestEnabled: false });
    await world.mention(projectId, owner.workspaceId);
    const other: string[] = [];
    const b = world.replica({ send: async (m) => (other.push(m.subject), { messageId: "<b@test>", via: "memory" }), close: () => undefined });
    await Promise.all([tick(world.deps), tick(b)]);
    expect(world.sent.length + other.length).toBe(1);
  });

  it("counts only the mentions a rule's keywordIds, groupIds, sources and sentiments all allow", async () => {
    const { owner, projectId } = await setUp();
    const w = owner.workspaceId;
    await world.rule(projectId, w, { name: "Angry Globex on X", instant: true, digestEnabled: false, keywordIds: ["kw_2", "kw_3"], groupIds: ["kwg_2"], sources: ["x"], sentiments: ["negative"] });
    const negative = { label: "negative", score: -0.8, method: "lexicon" };
    const globex = { keywordIds: ["kw_2"], groupIds: ["kwg_2"], keywords: [{ keywordId: "kw_2", value: "Globex", groupId: "kwg_2" }] };
    await world.mention(projectId, w, { ...globex, source: "x", sentiment: negative, text: "Globex broke again", url: "https://x.com/bob/status/1" });
    await world.mention(projectId, w, { ...globex, source: "reddit", sentiment: negative, text: "wrong source" });
    await world.mention(projectId, w, { ...globex, source: "x", text: "wrong sentiment" });
    await world.mention(projectId, w, { source: "x", sentiment: negative, text: "wrong keyword and group" });
    await world.mention(projectId, w, { ...globex, groupIds: ["kwg_9"], source: "x", sentiment: negative, text: "wrong group" });
    await tick(world.deps);
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]?.subject).toBe("Angry Globex on X for Launch: 1 new mention");
    expect(world.sent[0]?.text).toContain("Globex broke again");
    expect(world.sent[0]?.text).toContain("Globex: 1");
    expect(world.sent[0]?.text).toContain("https://x.com/bob/status/1");
  });

  it("owes nothing for mentions that arrived while the rule was off", async () => {
    const { owner, projectId } = await setUp();
    const alertId = await world.rule(projectId, owner.workspaceId, { name: "Now", instant: true, digestEnabled: false, active: false });
    await world.mention(projectId, owner.workspaceId);
    await world.event("alert", "alert.updated", { alertId, projectId, workspaceId: owner.workspaceId, name: "Now", active: true, instant: true, createdAt: "2027-02-10T10:00:00Z", fields: ["active"] });
    await tick(world.deps);
    expect(world.sent).toHaveLength(0);
  });
});
