import type { Mailer } from "@earshot/platform/core";
import { openDigestWorld, type DigestWorld } from "../test-support";
import { CLAIM_LEASE_MS } from "./digests";
import { tick } from "./scheduler";

// The Daily Digest goes out at the rule's hour, local time in the project's zone, once per rule and local
// date whatever the number of replicas, and not at all when nothing matched. Time is a ManualClock the
// tests move; each tick is what the service's timer runs. Dates are in 2027 so that no record expires
// under the embedded store's real-time TTL sweep.

const MINUTE = 60_000;

let world: DigestWorld;
afterEach(async () => world?.close());

/** A world whose owner has a project in `zone`, made two hours before `dueAt`. */
const projectIn = async (zone: string, dueAt: string) => {
  world = await openDigestWorld(new Date(Date.parse(dueAt) - 2 * 60 * MINUTE));
  const owner = await world.owner("ana@example.com");
  const project = await world.project(owner.workspaceId, zone);
  return { owner, ...project };
};

/** Nothing a minute before `dueAt`, the digest at `dueAt`, and nothing more on later ticks that day. */
const expectDigestAt = async (projectId: string, workspaceId: string, dueAt: string) => {
  const due = Date.parse(dueAt);
  world.clock.set(new Date(due - MINUTE));
  await world.mention(projectId, workspaceId);
  const before = world.sent.length;
  await tick(world.deps);
  expect(world.sent.length).toBe(before);
  world.clock.set(new Date(due));
  await tick(world.deps);
  expect(world.sent.length).toBe(before + 1);
  world.clock.advance(3 * 60 * MINUTE);
  await tick(world.deps);
  expect(world.sent.length).toBe(before + 1);
};

describe("the Daily Digest's hour", () => {
  it("is 8:00 in UTC", async () => {
    const p = await projectIn("UTC", "2027-02-10T08:00:00Z");
    await expectDigestAt(p.projectId, p.owner.workspaceId, "2027-02-10T08:00:00Z");
    expect(world.sent[0]).toMatchObject({ to: "ana@example.com", subject: "Daily Digest for Launch: 1 mention on 2027-02-10" });
  });

  it("is 8:00 in America/New_York on both sides of the spring and autumn DST changes", async () => {
    const p = await projectIn("America/New_York", "2027-03-13T13:00:00Z");
    await expectDigestAt(p.projectId, p.owner.workspaceId, "2027-03-13T13:00:00Z"); // EST, UTC-5
    await expectDigestAt(p.projectId, p.owner.workspaceId, "2027-03-14T12:00:00Z"); // the day DST starts: EDT, UTC-4
    await expectDigestAt(p.projectId, p.owner.workspaceId, "2027-11-06T12:00:00Z"); // EDT
    await expectDigestAt(p.projectId, p.owner.workspaceId, "2027-11-07T13:00:00Z"); // the day DST ends: EST again
    expect(world.sent.map((m) => m.subject)).toEqual([
      "Daily Digest for Launch: 1 mention on 2027-03-13",
      "Daily Digest for Launch: 1 mention on 2027-03-14",
      "Daily Digest for Launch: 1 mention on 2027-11-06",
      "Daily Digest for Launch: 1 mention on 2027-11-07",
    ]);
  });

  it("is 8:00 in the half-hour zone Asia/Kolkata (UTC+5:30)", async () => {
    const p = await projectIn("Asia/Kolkata", "2027-02-10T02:30:00Z");
    await expectDigestAt(p.projectId, p.owner.workspaceId, "2027-02-10T02:30:00Z");
  });

  it("is 8:00 in the quarter-hour zone Pacific/Chatham (UTC+13:45 in its summer), the day before in UTC", async () => {
    const p = await projectIn("Pacific/Chatham", "2027-01-14T18:15:00Z");
    await expectDigestAt(p.projectId, p.owner.workspaceId, "2027-01-14T18:15:00Z");
    expect(world.sent[0]?.subject).toContain("on 2027-01-15");
  });

  it("follows the rule's own hour", async () => {
    const p = await projectIn("Europe/Paris", "2027-02-10T16:00:00Z");
    await world.event("alert", "alert.updated", {
      alertId: p.dailyDigestId, projectId: p.projectId, workspaceId: p.owner.workspaceId, name: "Daily Digest", active: true,
      digestEnabled: true, digestHour: 17, isDefault: true, createdAt: "2027-02-01T00:00:00Z", fields: ["digest"],
    });
    await expectDigestAt(p.projectId, p.owner.workspaceId, "2027-02-10T16:00:00Z"); // 17:00 CET
  });
});

describe("sending each digest once", () => {
  it("sends it once when two replicas on one store tick at the same moment", async () => {
    const p = await projectIn("UTC", "2027-02-10T08:00:00Z");
    await world.mention(p.projectId, p.owner.workspaceId);
    world.clock.set("2027-02-10T08:00:00Z");
    const other: string[] = [];
    const b = world.replica({ send: async (m) => (other.push(m.subject), { messageId: "<b@test>", via: "memory" }), close: () => undefined });
    await Promise.all([tick(world.deps), tick(b), tick(world.deps), tick(b)]);
    expect(world.sent.length + other.length).toBe(1);
  });

  it("sends it once after a replica dies between its claim and the send", async () => {
    const p = await projectIn("UTC", "2027-02-10T08:00:00Z");
    await world.mention(p.projectId, p.owner.workspaceId);
    world.clock.set("2027-02-10T08:00:00Z");
    const dying: Mailer = { send: () => Promise.reject(new Error("process killed")), close: () => undefined };
    await tick(world.replica(dying));
    // Its claim holds while the claimer could still be sending…
    await tick(world.deps);
    expect(world.sent).toHaveLength(0);
    // …and is taken over once the lease has passed, by exactly one send.
    world.clock.advance(CLAIM_LEASE_MS);
    await Promise.all([tick(world.deps), tick(world.deps)]);
    world.clock.advance(CLAIM_LEASE_MS);
    await tick(world.deps);
    expect(world.sent).toHaveLength(1);
  });

  it("sends the day's digest late when the service was down at the hour, about the day before the hour", async () => {
    const p = await projectIn("UTC", "2027-02-10T08:00:00Z");
    world.clock.set("2027-02-10T07:00:00Z");
    await world.mention(p.projectId, p.owner.workspaceId, { text: "Acme before the hour" });
    world.clock.set("2027-02-10T09:00:00Z");
    await world.mention(p.projectId, p.owner.workspaceId, { text: "Acme after the hour" });
    world.clock.set("2027-02-10T14:00:00Z");
    await tick(world.deps);
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]?.text).toContain("Acme before the hour");
    expect(world.sent[0]?.text).not.toContain("Acme after the hour");
  });

  it("sends nothing when nothing matched, and nothing later that day", async () => {
    const p = await projectIn("UTC", "2027-02-10T08:00:00Z");
    world.clock.set("2027-02-10T08:00:00Z");
    await tick(world.deps);
    await world.mention(p.projectId, p.owner.workspaceId);
    world.clock.advance(MINUTE);
    await tick(world.deps);
    expect(world.sent).toHaveLength(0);
    expect(await world.deps.collections.sends.findById(`${p.dailyDigestId}:2027-02-10`)).toMatchObject({ status: "skipped", mentionCount: 0 });
  });

  it("sends nothing for a paused project, an inactive rule or a deactivated owner", async () => {
    const p = await projectIn("UTC", "2027-02-10T08:00:00Z");
    const q = await world.project(p.owner.workspaceId, "UTC", "Paused one");
    const other = await world.owner("gone@example.com");
    const r = await world.project(other.workspaceId);
    const off = await world.rule(p.projectId, p.owner.workspaceId, { name: "Off", active: false });
    for (const [projectId, workspaceId] of [[p.projectId, p.owner.workspaceId], [q.projectId, p.owner.workspaceId], [r.projectId, other.workspaceId]] as const) {
      await world.mention(projectId, workspaceId);
    }
    await world.event("project", "project.updated", { projectId: q.projectId, workspaceId: p.owner.workspaceId, fields: ["status"], status: "paused", digestTimezone: "UTC" });
    await world.event("account", "user.deactivated", { userId: other.userId, workspaceId: other.workspaceId });
    world.clock.set("2027-02-10T08:00:00Z");
    await tick(world.deps);
    expect(world.sent.map((m) => m.subject)).toEqual(["Daily Digest for Launch: 1 mention on 2027-02-10"]);
    expect(off).toMatch(/^alr_/);
  });
});
