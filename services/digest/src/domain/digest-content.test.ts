import { type DigestWorld, openDigestWorld } from "../test-support";
import { sendDigestNow } from "./digests";
import { tick } from "./scheduler";

// What a Daily Digest tells: every mention its rule is about counted (the rule's filter is applied before
// anything is capped), the newest of them listed first whichever keyword found them, and a manual send
// about the 24 hours up to the moment it is asked for. The project is in UTC with the digest at 8:00, so
// the digest of 2027-02-10 covers what was matched from 2027-02-09T08:00Z to 2027-02-10T08:00Z.

const keyword = (keywordId: string, value: string, groupId: string) => ({
  keywordIds: [keywordId],
  groupIds: [groupId],
  keywords: [{ keywordId, value, groupId }],
  groups: [{ groupId, name: groupId }],
});
const BRAND = keyword("kw_acme", "Acme", "kwg_brand");
const RIVAL = keyword("kw_globex", "Globex", "kwg_rivals");

const at = (hh: number, mm = 0, day = "2027-02-09") => new Date(`${day}T${String(hh).padStart(2, "0")}:${String(mm).padStart(2, "0")}:00.000Z`).toISOString();

/** The excerpt lines of the listed mentions, in the email's order. */
const listed = (text: string | undefined) => (text ?? "").split("\n").filter((l) => /^ {2}(Acme|Globex) post \d+$/.test(l)).map((l) => l.trim());

let world: DigestWorld;
let project: { projectId: string; dailyDigestId: string };
let workspaceId: string;
beforeEach(async () => {
  world = await openDigestWorld(new Date("2027-02-09T06:00:00Z"));
  workspaceId = (await world.owner("ana@example.com")).workspaceId;
  project = await world.project(workspaceId, "UTC");
});
afterEach(async () => world.close());

describe("a Daily Digest's latest mentions", () => {
  it("are the newest published first across every keyword, not those a keyword added later found last", async () => {
    // The brand's mentions arrive through the day as they are published…
    for (let h = 9; h <= 21; h += 1) {
      world.clock.set(at(h));
      await world.mention(project.projectId, workspaceId, { ...BRAND, text: `Acme post ${h}`, publishedAt: at(h) });
    }
    // …then a competitor's keyword is added at 22:00 and its first search finds ten older posts at once.
    world.clock.set(at(22));
    for (let i = 0; i < 10; i += 1) {
      await world.mention(project.projectId, workspaceId, { ...RIVAL, text: `Globex post ${i}`, publishedAt: at(8, 10 + i) });
    }
    world.clock.set("2027-02-10T08:00:00Z");
    await tick(world.deps);

    const mail = world.sent[0];
    expect(mail?.subject).toBe("Daily Digest for Launch: 23 mentions on 2027-02-10");
    expect(mail?.text).toContain("Acme: 13");
    expect(mail?.text).toContain("Globex: 10");
    expect(listed(mail?.text)).toEqual([21, 20, 19, 18, 17, 16, 15, 14, 13, 12].map((h) => `Acme post ${h}`));
    expect(mail?.text).toContain("…and 13 more mentions.");
  });

  it("count every mention the rule is about and list the rule's own, however busy the rest of the project", async () => {
    const competitors = await world.rule(project.projectId, workspaceId, { name: "Competitors", groupIds: ["kwg_rivals"] });
    world.clock.set(at(10));
    for (let i = 0; i < 3; i += 1) await world.mention(project.projectId, workspaceId, { ...RIVAL, text: `Globex post ${i}`, publishedAt: at(10, i) });
    // A busy day for the brand, newer than every competitor mention: more than any cap on what is read.
    world.clock.set(at(20));
    // One kept as the consumer keeps it, and copies of it (as a big batch of events would leave them, faster).
    const mentions = world.deps.collections.mentions;
    const kept = await mentions.findById(await world.mention(project.projectId, workspaceId, { ...BRAND, text: "Acme post 0", publishedAt: at(19) }));
    if (!kept) throw new Error("the mention was not kept");
    await mentions.insertMany(Array.from({ length: 5_002 }, (_, i) => ({ ...kept, _id: `${kept._id}_${i}`, text: `Acme post ${i + 1}`, publishedAt: new Date(at(19, i % 60)) })));

    world.clock.set("2027-02-10T08:00:00Z");
    await tick(world.deps);

    const bySubject = new Map(world.sent.map((m) => [m.subject, m]));
    expect([...bySubject.keys()].sort()).toEqual(["Competitors for Launch: 3 mentions on 2027-02-10", "Daily Digest for Launch: 5006 mentions on 2027-02-10"]);
    const rivals = bySubject.get("Competitors for Launch: 3 mentions on 2027-02-10");
    expect(listed(rivals?.text)).toEqual(["Globex post 2", "Globex post 1", "Globex post 0"]);
    expect(rivals?.text).not.toContain("Acme");
    const all = bySubject.get("Daily Digest for Launch: 5006 mentions on 2027-02-10");
    expect(all?.text).toContain("Acme: 5003");
    expect(all?.text).toContain("Globex: 3");
    expect(all?.text).toContain("Reddit: 5006");
    expect(await world.deps.collections.sends.findById(`${competitors}:2027-02-10`)).toMatchObject({ status: "sent", mentionCount: 3 });
  });
});

describe("a manual send", () => {
  it("covers the 24 hours up to now, says so, and a given date covers that day's scheduled window", async () => {
    world.clock.set(at(7));
    await world.mention(project.projectId, workspaceId, { ...BRAND, text: "Acme post 1" }); // a day and 7 hours ago
    world.clock.set(at(7, 0, "2027-02-10"));
    await world.mention(project.projectId, workspaceId, { ...BRAND, text: "Acme post 2" }); // before today's 8:00
    world.clock.set(at(13, 0, "2027-02-10"));
    await world.mention(project.projectId, workspaceId, { ...BRAND, text: "Acme post 3" }); // an hour ago, after 8:00
    world.clock.set(at(14, 0, "2027-02-10"));

    const now = await sendDigestNow(world.deps, project.projectId);
    expect(now).toEqual({ sent: 1, mentions: 2, window: { from: new Date(at(14)), until: new Date(at(14, 0, "2027-02-10")) } });
    expect(world.sent[0]?.subject).toBe("[manual send] Daily Digest for Launch: 2 mentions on 2027-02-10");
    expect(world.sent[0]?.text).toContain('2 mentions matched "Daily Digest" in Launch from 2027-02-09 14:00 to 2027-02-10 14:00 (UTC).');
    expect(listed(world.sent[0]?.text)).toEqual(["Acme post 3", "Acme post 2"]);

    const dated = await sendDigestNow(world.deps, project.projectId, "2027-02-10");
    expect(dated).toEqual({ sent: 1, mentions: 1, window: { from: new Date(at(8)), until: new Date(at(8, 0, "2027-02-10")) } });
    expect(listed(world.sent[1]?.text)).toEqual(["Acme post 2"]);
  });
});
