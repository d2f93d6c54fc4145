import { knowDefaultGroups, knowProject } from "../read-test-support";
import type { MentionDoc } from "../store";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { type AnalyticsInput, getMentionAnalytics } from "./analytics";
import { bucketStart } from "./local-time";

describe("get_mention_analytics", () => {
  let world: MentionWorld;
  const projectId = "prj_01JANALYTICS0000000000001";
  const otherProject = "prj_01JANALYTICS0000000000002";
  beforeEach(async () => {
    world = await openMentionWorld();
  });
  afterEach(() => world.close());

  const viewer = () => world.caller({ [projectId]: "viewer" });
  const at = (iso: string, fields: Partial<MentionDoc> = {}) => world.seedMention(projectId, { publishedAt: new Date(iso), ...fields });
  const analytics = (input: Omit<AnalyticsInput, "projectId">) => getMentionAnalytics(world.deps, viewer(), { projectId, ...input });
  const series = (a: Awaited<ReturnType<typeof analytics>>) => a.buckets.map((b) => [b.start.toISOString(), b.counts.all ?? 0]);

  describe("in Europe/Paris", () => {
    beforeEach(() => knowProject(world, projectId, "Europe/Paris"));

    it("cuts days at local midnight across the spring change (a 23-hour day)", async () => {
      await at("2026-03-28T23:30:00Z"); // 29 March 00:30 CET
      await at("2026-03-29T21:30:00Z"); // 29 March 23:30 CEST
      await at("2026-03-29T22:30:00Z"); // 30 March 00:30 CEST
      const a = await analytics({ since: "2026-03-28T00:00:00+01:00", until: "2026-03-31T00:00:00+02:00", interval: "day" });
      expect(a.timezone).toBe("Europe/Paris");
      expect(series(a)).toEqual([
        ["2026-03-27T23:00:00.000Z", 0],
        ["2026-03-28T23:00:00.000Z", 2],
        ["2026-03-29T22:00:00.000Z", 1],
      ]);
      expect(a.total).toBe(3);
    });

    it("cuts days at local midnight across the autumn change (a 25-hour day)", async () => {
      await at("2026-10-25T22:30:00Z"); // 25 October 23:30 CET, the 25th hour of the day
      const a = await analytics({ since: "2026-10-25T00:00:00+02:00", until: "2026-10-27T00:00:00+01:00", interval: "day" });
      expect(series(a)).toEqual([
        ["2026-10-24T22:00:00.000Z", 1],
        ["2026-10-25T23:00:00.000Z", 0],
      ]);
    });

    it("counts hours as they pass, the repeated local hour twice", async () => {
      await at("2026-10-25T00:30:00Z"); // 02:30 CEST
      await at("2026-10-25T01:30:00Z"); // 02:30 CET
      await at("2026-10-25T01:45:00Z");
      const a = await analytics({ since: "2026-10-25T01:00:00+02:00", until: "2026-10-25T04:00:00+01:00", interval: "hour" });
      expect(series(a)).toEqual([
        ["2026-10-24T23:00:00.000Z", 0],
        ["2026-10-25T00:00:00.000Z", 1],
        ["2026-10-25T01:00:00.000Z", 2],
        ["2026-10-25T02:00:00.000Z", 0],
      ]);
    });

    it("starts weeks on Monday at local midnight, across the autumn change", async () => {
      await at("2026-10-25T22:30:00Z"); // Sunday 25 October 23:30 CET: still the week of the 19th
      await at("2026-10-25T23:30:00Z"); // Monday 26 October 00:30 CET
      const a = await analytics({ since: "2026-10-20T12:00:00Z", until: "2026-11-03T00:00:00Z", interval: "week" });
      expect(series(a)).toEqual([
        ["2026-10-18T22:00:00.000Z", 1],
        ["2026-10-25T23:00:00.000Z", 1],
        ["2026-11-01T23:00:00.000Z", 0],
      ]);
    });
  });

  it("starts a day whose midnight does not exist at its first instant", () => {
    // America/Santiago springs forward at midnight: 6 September 2026 begins at 01:00 -03.
    expect(new Date(bucketStart(Date.parse("2026-09-06T12:00:00Z"), "day", "America/Santiago")).toISOString()).toBe("2026-09-06T04:00:00.000Z");
    expect(new Date(bucketStart(Date.parse("2026-09-05T12:00:00Z"), "day", "America/Santiago")).toISOString()).toBe("2026-09-05T04:00:00.000Z");
  });

  it("starts hours on the local hour in a zone half an hour off UTC", () => {
    expect(new Date(bucketStart(Date.parse("2026-06-01T10:10:00Z"), "hour", "Asia/Kolkata")).toISOString()).toBe("2026-06-01T09:30:00.000Z");
  });

  it("counts in UTC for a project it has not heard of, 30 days of days up to now by default", async () => {
    const now = world.clock.now().getTime();
    await world.seedMention(projectId, { publishedAt: new Date(now - 3_600_000) });
    await world.seedMention(projectId, { publishedAt: new Date(now - 31 * 24 * 3_600_000) });
    const a = await analytics({});
    expect(a.timezone).toBe("UTC");
    expect(a.interval).toBe("day");
    expect(a.until.getTime()).toBe(now);
    expect(a.since.getTime()).toBe(now - 30 * 24 * 3_600_000);
    expect(a.buckets[0]!.start.getTime()).toBe(Date.UTC(new Date(a.since).getUTCFullYear(), a.since.getUTCMonth(), a.since.getUTCDate()));
    expect(a.total).toBe(1);
  });

  describe("by dimension", () => {
    const since = "2026-06-01T00:00:00Z";
    const until = "2026-06-03T00:00:00Z";
    beforeEach(async () => {
      await knowProject(world, projectId, "UTC");
      await knowDefaultGroups(world, projectId, { myBrand: "kwg_brand", competitors: "kwg_rivals" });
      await at("2026-06-01T08:00:00Z", { keywordIds: ["kw_acme"], groupIds: ["kwg_brand"], source: "x", status: "open", sentiment: { label: "positive", score: 0.5, method: "lexicon" }, categoryId: "cat_lead" });
      await at("2026-06-01T09:00:00Z", { keywordIds: ["kw_acme", "kw_globex"], groupIds: ["kwg_brand", "kwg_rivals"], source: "reddit", status: "done", sentiment: { label: "negative", score: -0.5, method: "lexicon" } });
      await at("2026-06-02T10:00:00Z", { keywordIds: ["kw_globex"], groupIds: ["kwg_rivals"], source: "reddit", status: "open", sentiment: { label: "neutral", score: 0, method: "lexicon" } });
      await at("2026-06-02T11:00:00Z", { keywordIds: ["kw_other"], groupIds: ["kwg_custom"], source: "youtube", status: "follow_up", sentiment: { label: "neutral", score: 0, method: "lexicon" } });
      // Outside the range, and another project's.
      await at("2026-06-03T00:00:00Z");
      await world.seedMention(otherProject, { publishedAt: new Date("2026-06-01T12:00:00Z") });
    });

    it.each<[string, AnalyticsInput["groupBy"], Record<string, number>, Array<Record<string, number>>]>([
      ["keyword", "keyword", { kw_acme: 2, kw_globex: 2, kw_other: 1 }, [{ kw_acme: 2, kw_globex: 1 }, { kw_globex: 1, kw_other: 1 }]],
      ["group", "group", { kwg_brand: 2, kwg_rivals: 2, kwg_custom: 1 }, [{ kwg_brand: 2, kwg_rivals: 1 }, { kwg_rivals: 1, kwg_custom: 1 }]],
      ["source", "source", { x: 1, reddit: 2, youtube: 1 }, [{ x: 1, reddit: 1 }, { reddit: 1, youtube: 1 }]],
      ["sentiment", "sentiment", { positive: 1, negative: 1, neutral: 2 }, [{ positive: 1, negative: 1 }, { neutral: 2 }]],
      ["status", "status", { open: 2, done: 1, follow_up: 1 }, [{ open: 1, done: 1 }, { open: 1, follow_up: 1 }]],
      ["category", "category", { cat_lead: 1, none: 3 }, [{ cat_lead: 1, none: 1 }, { none: 2 }]],
      ["nothing (all together)", undefined, { all: 4 }, [{ all: 2 }, { all: 2 }]],
    ])("groups by %s", async (_what, groupBy, totals, perDay) => {
      const a = await analytics({ since, until, groupBy });
      expect(a.totals).toEqual(totals);
      expect(a.buckets.map((b) => b.counts)).toEqual(perDay);
      expect(a.total).toBe(4);
    });

    it("gives My brand's share of voice against Competitors, filters applied", async () => {
      const a = await analytics({ since, until });
      expect(a.shareOfVoice).toEqual({ myBrand: 2, competitors: 2, myBrandShare: 0.5 });
      const open = await analytics({ since, until, filters: { status: ["open"] } });
      expect(open.shareOfVoice).toEqual({ myBrand: 1, competitors: 1, myBrandShare: 0.5 });
      expect(open.total).toBe(2);
      const x = await analytics({ since, until, filters: { source: ["youtube"] } });
      expect(x.shareOfVoice).toEqual({ myBrand: 0, competitors: 0, myBrandShare: 0 });
    });

    it("totals every mention of the range once whatever the split, a mention without the split's value included, counting no more than once", async () => {
      await at("2026-06-02T12:00:00Z", { keywordIds: [], groupIds: [], sentiment: undefined as unknown as MentionDoc["sentiment"] });
      const count = jest.spyOn(world.deps.collections.mentions, "count");
      for (const groupBy of [undefined, "source", "sentiment", "status", "category", "keyword", "group"]) {
        count.mockClear();
        // Starting mid-day: the first bucket starts before the range, which must not widen the total.
        const a = await analytics({ since: "2026-06-01T08:30:00Z", until, groupBy });
        expect(a.total).toBe(4);
        // The share of voice counts My brand and Competitors; a split that counts each mention once gives the total.
        expect(count).toHaveBeenCalledTimes(groupBy === "keyword" || groupBy === "group" ? 3 : 2);
      }
    });

    it("counts a mention in two My brand groups once, should a project have two", async () => {
      await world.deps.collections.groups.insertOne({ _id: "kwg_brand2", projectId, name: "My brand", isDefault: true, updatedAt: world.clock.now() });
      await at("2026-06-02T12:00:00Z", { groupIds: ["kwg_brand", "kwg_brand2"] });
      await at("2026-06-02T13:00:00Z", { groupIds: ["kwg_brand2"] });
      const a = await analytics({ since, until });
      expect(a.shareOfVoice).toEqual({ myBrand: 4, competitors: 2, myBrandShare: 4 / 6 });
    });

    it("narrows the range to the filters' own since and until", async () => {
      const a = await analytics({ since, until, filters: { since: "2026-06-01T08:30:00Z", until: "2026-06-02T10:30:00Z" } });
      expect(a.buckets.map((b) => b.counts.all ?? 0)).toEqual([1, 1]);
    });
  });

  it("refuses more than 400 buckets naming interval", async () => {
    const refusal = await refusalOf(analytics({ since: "2026-01-01T00:00:00Z", until: "2026-02-01T00:00:00Z", interval: "hour" }));
    expect(refusal.errors.map((e) => e.path)).toEqual(["interval"]);
    expect((await analytics({ since: "2026-01-01T00:00:00Z", until: "2026-01-17T00:00:00Z", interval: "hour" })).buckets).toHaveLength(384);
  });

  it("refuses bad parameters naming each", async () => {
    const paths = async (input: Omit<AnalyticsInput, "projectId">) => (await refusalOf(analytics(input))).errors.map((e) => e.path).sort();
    expect(await paths({ interval: "minute", groupBy: "author", since: "last week" })).toEqual(["groupBy", "interval", "since"]);
    expect(await paths({ since: "2026-02-01T00:00:00Z", until: "2026-01-01T00:00:00Z" })).toEqual(["until"]);
    expect(await paths({ filters: { status: ["gone"] } })).toEqual(["filters.status.0"]);
    expect((await refusalOf(getMentionAnalytics(world.deps, viewer(), { projectId: "" }))).errors.map((e) => e.path)).toEqual(["projectId"]);
  });

  it("answers not_found for a project the caller is not in, as for a missing one", async () => {
    const outsider = world.caller({ [otherProject]: "owner" });
    const refusal = await refusalOf(getMentionAnalytics(world.deps, outsider, { projectId }));
    const missing = await refusalOf(getMentionAnalytics(world.deps, outsider, { projectId: "prj_01JNOSUCHPROJECT0000000000" }));
    expect(refusal.code).toBe("not_found");
    expect(refusal.message).toBe(missing.message);
  });
});
