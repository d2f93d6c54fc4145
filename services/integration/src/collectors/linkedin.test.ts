import { createLogger } from "@earshot/platform";
import { type RunningSimulators, SIM_CREDENTIALS, SIM_PREFIXES, startSimulators } from "@earshot/simulators";
import { LinkedinApi } from "../linkedin/linkedin-api";
import { linkedinAccessToken, linkedinTestDeps } from "../linkedin/linkedin-test-support";
import type { PollInput } from "./collector";
import { createLinkedinCollector, type LinkedinCollectorOptions } from "./linkedin";
import { postProblems } from "./post-check-test-support";
import { ProviderRateLimited, ProviderRejected } from "./provider-errors";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const ACME = "urn:li:organization:1001";
const GLOBEX = "urn:li:organization:2001";
const DAY = 24 * 3_600_000;

describe("LinkedIn collector against the simulator", () => {
  let sims: RunningSimulators;
  let now = NOW;
  let token: string;

  const collector = (options: LinkedinCollectorOptions = {}) => createLinkedinCollector(linkedinTestDeps(sims, () => now), options);
  const input = (cursor?: unknown, organizationUrn = ACME): PollInput => ({
    projectId: "prj_1",
    keywords: [{ id: "kw_1", value: "acme", aliases: [], excludedTerms: [], caseSensitive: false, sources: ["linkedin"], filters: {} }],
    cursor,
    now: new Date(now),
    signal: new AbortController().signal,
    linkedin: { accessToken: token, organizationUrn },
  });
  const notificationCalls = () => sims.world.requests("linkedin").filter((r) => r.path === "/organizationalEntityNotifications");

  const start = async (generate: boolean) => {
    now = NOW;
    sims = await startSimulators({ platforms: ["linkedin", "youtube"], generate, now: () => now });
    token = await linkedinAccessToken(new LinkedinApi(linkedinTestDeps(sims, () => now)), "member-a");
  };
  afterEach(() => sims.close());

  describe("with published activity only", () => {
    beforeEach(() => start(false));

    it("needs a selected Page", async () => {
      const err = await collector()
        .poll({ ...input(), linkedin: undefined })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderRejected);
      expect((err as Error).message).toContain("no LinkedIn Page selected");
    });

    it("maps the selected Page's mentions and comments to posts, sending LinkedIn's headers", async () => {
      const share = sims.world.publish("linkedin", { organizationUrn: ACME, text: "Loving the new Acme Corp dashboard", createdAtMs: NOW - 60_000, author: { handle: "janedoe" } });
      const comment = sims.world.publish("linkedin", { organizationUrn: ACME, kind: "comment", parentKey: share.key, text: "Acme support rocks", createdAtMs: NOW - 30_000, author: { handle: "bob" } });
      sims.world.publish("linkedin", { organizationUrn: "urn:li:organization:1002", text: "Acme Labs is hiring", createdAtMs: NOW - 20_000 });
      const out = await collector().poll(input());
      for (const p of out.posts) expect(postProblems(p)).toEqual([]);
      const shareUrn = `urn:li:share:${share.key}`;
      const commentUrn = `urn:li:comment:(${shareUrn},${comment.key})`;
      expect(out.posts).toEqual([
        { source: "linkedin", sourceId: shareUrn, url: `https://www.linkedin.com/feed/update/${shareUrn}/`, text: "Loving the new Acme Corp dashboard", author: { id: "urn:li:person:janedoe", handle: "janedoe", name: "janedoe" }, publishedAt: new Date(NOW - 60_000).toISOString() },
        { source: "linkedin", sourceId: commentUrn, url: `https://www.linkedin.com/feed/update/${shareUrn}?commentUrn=${encodeURIComponent(commentUrn)}`, text: "Acme support rocks", author: { id: "urn:li:person:bob", handle: "bob", name: "bob" }, publishedAt: new Date(NOW - 30_000).toISOString(), parentId: shareUrn },
      ]);
      const calls = sims.world.requests("linkedin").filter((r) => !r.path.startsWith("/oauth"));
      for (const c of calls) expect(c.headers).toEqual(expect.objectContaining({ authorization: `Bearer ${token}`, "linkedin-version": "202510", "x-restli-protocol-version": "2.0.0" }));
      expect(notificationCalls()[0]?.query).toEqual(expect.objectContaining({ q: "criteria", organizationalEntity: ACME, actions: "List(SHARE_MENTION,COMMENT)", timeRange: `(start:${NOW - DAY},end:${NOW + 1})` }));
    });

    it("pages through the notifications", async () => {
      for (let i = 0; i < 7; i++) sims.world.publish("linkedin", { organizationUrn: ACME, text: `Acme mention ${i}`, createdAtMs: NOW - 10_000 + i });
      const out = await collector({ pageSize: 3 }).poll(input());
      expect(out.posts.map((p) => p.text)).toEqual(Array.from({ length: 7 }, (_, i) => `Acme mention ${i}`));
      expect(notificationCalls().map((c) => c.query.start)).toEqual(["0", "3", "6"]);
    });

    it("reads notifications beyond one poll's pages on the next poll before moving past them", async () => {
      for (let i = 0; i < 8; i++) sims.world.publish("linkedin", { organizationUrn: ACME, text: `Acme mention ${i}`, createdAtMs: NOW - 10_000 + i });
      const first = await collector({ pageSize: 3, maxPages: 2 }).poll(input());
      expect(first.posts.map((p) => p.text).sort()).toEqual([2, 3, 4, 5, 6, 7].map((i) => `Acme mention ${i}`));
      now += 60_000;
      const later = sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme mention later", createdAtMs: now - 1_000 });
      const second = await collector({ pageSize: 3, maxPages: 2 }).poll(input(JSON.parse(JSON.stringify(first.cursor))));
      expect(second.posts.map((p) => p.text)).toEqual(["Acme mention 0", "Acme mention 1"]);
      const third = await collector({ pageSize: 3, maxPages: 2 }).poll(input(second.cursor));
      expect(third.posts.map((p) => p.sourceId)).toEqual([`urn:li:share:${later.key}`]);
      expect(notificationCalls()[3]?.query.timeRange).toBe(`(start:${NOW - 10_000 + 7},end:${now + 1})`);
      expect((await collector({ pageSize: 3, maxPages: 2 }).poll(input(third.cursor))).posts).toEqual([]);
    });

    it("skips a post or comment LinkedIn refuses to show, logs it, and goes on with the rest", async () => {
      const hidden = sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme, privately", createdAtMs: NOW - 30_000 });
      const open = sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme, publicly", createdAtMs: NOW - 20_000 });
      const unseen = sims.world.publish("linkedin", { organizationUrn: ACME, kind: "comment", parentKey: open.key, text: "Acme comment nobody may see", createdAtMs: NOW - 10_000 });
      const last = sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme, later", createdAtMs: NOW - 5_000 });
      sims.world.fail("linkedin", { status: 403, matching: `/posts/urn:li:share:${hidden.key}` });
      sims.world.fail("linkedin", { status: 403, matching: `/socialActions/urn:li:share:${open.key}/comments` });
      const logs: Array<Record<string, unknown>> = [];
      const logger = createLogger("integration-test", { level: "warn", destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) } });
      const out = await createLinkedinCollector({ ...linkedinTestDeps(sims, () => now), logger }).poll(input());
      expect(out.posts.map((p) => p.sourceId)).toEqual([`urn:li:share:${open.key}`, `urn:li:share:${last.key}`]);
      expect(out.skipped).toBe(2);
      expect(logs.map((l) => [l.level, l.msg, l.detail])).toEqual([
        [40, "linkedin: skipped an activity LinkedIn refused (403)", `urn:li:share:${hidden.key}`],
        [40, "linkedin: skipped an activity LinkedIn refused (403)", `urn:li:comment:(urn:li:share:${open.key},${unseen.key})`],
      ]);
      expect((await collector().poll(input(out.cursor))).posts).toEqual([]);
    });

    it("resumes from the last notification after a restart and never emits one twice", async () => {
      sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme one", createdAtMs: NOW - 5_000 });
      const first = await collector().poll(input());
      expect(first.posts.map((p) => p.text)).toEqual(["Acme one"]);
      const stored = JSON.parse(JSON.stringify(first.cursor)) as unknown;
      now += 60_000;
      sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme two", createdAtMs: now - 1_000 });
      const second = await collector().poll(input(stored));
      expect(second.posts.map((p) => p.text)).toEqual(["Acme two"]);
      expect(notificationCalls()[1]?.query.timeRange).toBe(`(start:${NOW - 5_000},end:${now + 1})`);
      expect((await collector().poll(input(second.cursor))).posts).toEqual([]);
    });

    it("looks back a day on the first poll and never further than LinkedIn's 60 days", async () => {
      sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme two days ago", createdAtMs: NOW - 2 * DAY });
      expect((await collector().poll(input())).posts).toEqual([]);
      const old = { v: 1, organizationUrn: ACME, since: NOW - 90 * DAY, seen: [] };
      const out = await collector().poll(input(old));
      expect(out.posts.map((p) => p.text)).toEqual(["Acme two days ago"]);
      expect(notificationCalls()[1]?.query.timeRange).toBe(`(start:${NOW - 60 * DAY + 60_000},end:${NOW + 1})`);
    });

    it("surfaces the 403 for a Page the member does not administer as ProviderRejected", async () => {
      const err = await collector()
        .poll(input(undefined, GLOBEX))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderRejected);
      expect((err as ProviderRejected).status).toBe(403);
    });

    it("surfaces LinkedIn's 429 as ProviderRateLimited with the Retry-After", async () => {
      sims.world.fail("linkedin", { status: 429, retryAfterSeconds: 600 });
      const err = await collector()
        .poll(input())
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderRateLimited);
      expect((err as ProviderRateLimited).retryAt.getTime()).toBe(NOW + 600_000);
    });

    it("retries a 5xx and then succeeds", async () => {
      sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme after outage", createdAtMs: NOW - 5_000 });
      sims.world.fail("linkedin", { status: 502, count: 2 });
      const out = await collector().poll(input());
      expect(out.posts.map((p) => p.text)).toEqual(["Acme after outage"]);
      expect(notificationCalls()).toHaveLength(3);
    });

    it("skips a malformed notification and keeps the rest", async () => {
      sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme fine", createdAtMs: NOW - 5_000 });
      sims.world.malform("linkedin", 1);
      const out = await collector().poll(input());
      expect(out.skipped).toBe(1);
      expect(out.posts.map((p) => p.text)).toEqual(["Acme fine"]);
    });
  });

  it("collects generated mentions naming the Page and the terms searched at other platforms", async () => {
    await start(true);
    await fetch(`${sims.origin}${SIM_PREFIXES.youtubeApi}/search?part=snippet&q=${encodeURIComponent('"quantum kettle"')}&key=${SIM_CREDENTIALS.youtubeApiKey}`);
    const out = await collector().poll(input());
    expect(out.posts.some((p) => !p.parentId && p.text.includes("Acme Corp") && p.text.toLowerCase().includes("quantum kettle"))).toBe(true);
    expect(out.posts.some((p) => p.parentId && p.text.includes("Acme Corp"))).toBe(true);
  });
});
