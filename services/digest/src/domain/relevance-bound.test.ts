import { openDigestWorld, type DigestWorld } from "../test-support";
import { tick } from "./scheduler";

// A rule's filters.minRelevance: instant alerts and the daily digest hold only mentions whose score, as
// mention.created carried it, reaches the bound; a mention stored without a score counts as 0.5.

const HOUR = 3_600_000;

let world: DigestWorld;
afterEach(async () => world?.close());

const scored = (score: number) => ({ relevance: { score, label: score >= 0.65 ? 1 : score < 0.35 ? 3 : 2, reasons: [], model: "m1" } });

it("instant alerts and the digest leave out mentions below the rule's bound, and keep unscored ones only under a bound of 0.5 or less", async () => {
  world = await openDigestWorld(new Date("2027-02-10T10:00:00Z"));
  const owner = await world.owner("ana@example.com");
  const { projectId } = await world.project(owner.workspaceId);
  await world.rule(projectId, owner.workspaceId, { name: "Signal", instant: true, digestEnabled: true, digestHour: 8, minRelevance: 0.6 });
  await world.rule(projectId, owner.workspaceId, { name: "Middling", instant: true, digestEnabled: false, minRelevance: 0.5 });
  await world.mention(projectId, owner.workspaceId, { text: "Acme tracker launched", ...scored(0.9) });
  await world.mention(projectId, owner.workspaceId, { text: "Acme at the edge", ...scored(0.6) });
  await world.mention(projectId, owner.workspaceId, { text: "acme of algebra homework", ...scored(0.2) });
  await world.mention(projectId, owner.workspaceId, { text: "Acme from before scoring" });
  await tick(world.deps);
  const instant = (name: string) => world.sent.find((m) => m.subject.startsWith(`${name} for`));
  expect(instant("Signal")?.subject).toBe("Signal for Launch: 2 new mentions");
  expect(instant("Signal")?.text).toContain("Acme tracker launched");
  expect(instant("Signal")?.text).toContain("Acme at the edge");
  expect(instant("Signal")?.text).not.toContain("algebra");
  expect(instant("Signal")?.text).not.toContain("before scoring");
  expect(instant("Middling")?.subject).toBe("Middling for Launch: 3 new mentions");
  expect(instant("Middling")?.text).toContain("before scoring");

  const before = world.sent.length;
  world.clock.advance(22 * HOUR);
  await tick(world.deps);
  const digest = world.sent.slice(before).find((m) => m.subject.includes("Signal"));
  expect(digest?.text).toContain("Acme tracker launched");
  expect(digest?.text).not.toContain("algebra");
  expect(digest?.text).not.toContain("before scoring");
});
