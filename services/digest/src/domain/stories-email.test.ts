import { type DigestWorld, openDigestWorld } from "../test-support";
import { tick } from "./scheduler";

// The Daily Digest and instant alerts count a story (copies of one link or one text across sources) once:
// "5 mentions in 3 stories", one line per story with "and N more", as the mention events' story says.

const story = (id: string, size = 1) => ({ story: { id, size, firstMentionId: `men_${id}` } });

let world: DigestWorld;
afterEach(async () => world?.close());

describe("stories in emails", () => {
  it("an instant alert lists a story once, with how many more mentions it holds", async () => {
    world = await openDigestWorld(new Date("2027-02-10T10:00:00Z"));
    const owner = await world.owner("ana@example.com");
    const { projectId } = await world.project(owner.workspaceId);
    await world.rule(projectId, owner.workspaceId, { name: "Now", instant: true, digestEnabled: false });
    await world.mention(projectId, owner.workspaceId, { text: "Acme raises a series B", ...story("sto_A") });
    await world.mention(projectId, owner.workspaceId, { text: "RT Acme raises a series B", ...story("sto_A", 2) });
    await world.mention(projectId, owner.workspaceId, { text: "Acme raises a series B #news", ...story("sto_A", 3) });
    await world.mention(projectId, owner.workspaceId, { text: "Acme app review", ...story("sto_B") });
    await tick(world.deps);
    const text = world.sent[0]?.text ?? "";
    expect(world.sent[0]?.subject).toBe("Now for Launch: 4 new mentions");
    expect(text).toContain("4 new mentions in 2 stories matched");
    expect(text.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(2);
    expect(text).toContain("…and 2 more mentions of this story");
    expect(world.sent[0]?.html).toContain("and 2 more mentions of this story");
  });

  it("a Daily Digest counts the day's stories and lists each once", async () => {
    world = await openDigestWorld(new Date("2027-02-09T06:00:00Z"));
    const { workspaceId } = await world.owner("ana@example.com");
    const { projectId } = await world.project(workspaceId, "UTC");
    world.clock.set("2027-02-09T12:00:00Z");
    for (const [text, id] of [["Acme one", "sto_A"], ["Acme one again", "sto_A"], ["Acme two", "sto_B"], ["Acme three", "sto_C"], ["Acme three again", "sto_C"]] as const) {
      await world.mention(projectId, workspaceId, { text, ...story(id) });
    }
    world.clock.set("2027-02-10T08:00:00Z");
    await tick(world.deps);
    const text = world.sent[0]?.text ?? "";
    expect(text).toContain("5 mentions in 3 stories matched");
    expect(text.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(3);
    expect(text.match(/…and 1 more mention of this story/g)).toHaveLength(2);
  });
});
