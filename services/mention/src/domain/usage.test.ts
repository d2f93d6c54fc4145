import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { ingestPosts } from "./ingest";
import { mentionsThisMonth, startOfUtcMonth } from "./usage";

describe("usage", () => {
  let world: MentionWorld;
  beforeEach(async () => {
    world = await openMentionWorld();
  });
  afterEach(() => world.close());

  it("counts the mentions a workspace received since the start of the UTC month, whatever their keywords became", async () => {
    const mine = await world.newProject("wsp_1");
    const theirs = await world.newProject("wsp_2");
    const k = await world.addKeyword(mine, "acme");
    await world.addKeyword(theirs, "acme");
    world.clock.set("2026-10-31T23:59:59.000Z");
    await ingestPosts(world.deps, [world.post(mine, { text: "acme" }), world.post(mine, { text: "acme" })]);
    world.clock.set("2026-11-01T00:00:00.000Z");
    expect(await mentionsThisMonth(world.deps, "wsp_1")).toBe(0);
    await ingestPosts(world.deps, [world.post(mine, { text: "acme" }), world.post(theirs, { text: "acme" })]);
    world.clock.set("2026-11-30T23:59:59.999Z");
    await ingestPosts(world.deps, [world.post(mine, { text: "acme" })]);
    // A deactivated keyword's mentions still count.
    await world.keywordEvent("keyword.deactivated", { ...k, active: false });
    expect(await mentionsThisMonth(world.deps, "wsp_1")).toBe(2);
    expect(await mentionsThisMonth(world.deps, "wsp_2")).toBe(1);
    world.clock.set("2026-12-01T00:00:00.000Z");
    expect(await mentionsThisMonth(world.deps, "wsp_1")).toBe(0);
  });

  it("starts months in UTC, whatever the local offset of the instant", () => {
    expect(startOfUtcMonth(new Date("2026-03-01T00:30:00+02:00")).toISOString()).toBe("2026-02-01T00:00:00.000Z");
    expect(startOfUtcMonth(new Date("2026-12-31T23:00:00-05:00")).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });

  it("refuses a request without a workspace, naming the field", async () => {
    expect(await refusalOf(mentionsThisMonth(world.deps, ""))).toMatchObject({ code: "validation_failed", errors: [{ path: "workspaceId" }] });
  });
});
