import { createLogger } from "@earshot/platform";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { integrationSettingsOf } from "../config";
import type { CollectorDeps } from "./collector-deps";
import { createGithubCollector } from "./github";
import { createHackernewsCollector } from "./hackernews";
import { postProblems } from "./post-check-test-support";
import { ProviderRateLimited } from "./provider-errors";
import { ProviderHttp } from "./provider-http";
import { keyword, seededRandom, TEST_NOW } from "./query-test-support";

// The Hacker News and GitHub simulators (what `make run` serves with EARSHOT_SIMULATORS=all, and what tests
// read instead of the internet) speak what the real collectors read: the same collectors that run in
// production, against the simulators on a clock fixed at TEST_NOW.

describe("Hacker News and GitHub collectors against the simulators", () => {
  let sims: RunningSimulators;
  let now = TEST_NOW;
  const depsOf = (): CollectorDeps => ({
    settings: integrationSettingsOf({ ...sims.settings, EARSHOT_POLL_INTERVAL_SECONDS: "300" }),
    http: new ProviderHttp({ retries: 0, retryBaseMs: 1, random: seededRandom(), now: () => now }),
    quota: { take: () => Promise.reject(new Error("unused")), left: () => Promise.reject(new Error("unused")) },
    logger: createLogger("free-sim-test", { level: "silent" }),
    now: () => new Date(now),
  });
  const input = (source: "hackernews" | "github", cursor?: unknown) => ({
    projectId: "prj_test",
    keywords: [keyword("Acme Rocket", { sources: [source] })],
    cursor,
    now: new Date(now),
    signal: new AbortController().signal,
  });

  beforeAll(async () => {
    sims = await startSimulators({ platforms: ["hackernews", "github"], now: () => now, generateEveryMs: 60_000, backfill: 10 });
  });
  afterAll(() => sims.close());

  it("Hacker News: generated stories and a published comment arrive as Posts, and a poll from the cursor finds only what is new", async () => {
    now = TEST_NOW;
    sims.world.publish("hackernews", { text: "We moved to Acme Rocket & never looked back", kind: "comment", title: "Ask HN: build tools?", createdAtMs: now - 30_000 });
    const collector = createHackernewsCollector(depsOf());
    const first = await collector.poll(input("hackernews"));
    expect(first.posts.length).toBeGreaterThan(1);
    for (const p of first.posts) {
      expect(postProblems(p)).toEqual([]);
      expect(`${p.title ?? ""} ${p.text}`.toLowerCase()).toContain("acme rocket");
      expect(p.url).toMatch(/^https:\/\/news\.ycombinator\.com\/item\?id=\d+$/);
    }
    const comment = first.posts.find((p) => p.text.startsWith("We moved"));
    expect(comment).toMatchObject({ title: "Ask HN: build tools?", text: "We moved to Acme Rocket & never looked back", parentId: expect.stringMatching(/^\d+$/) });

    now = TEST_NOW + 120_000;
    const later = sims.world.publish("hackernews", { text: "Acme Rocket 2.0 is out", title: "Acme Rocket 2.0", createdAtMs: now - 1_000 });
    const second = await collector.poll(input("hackernews", JSON.parse(JSON.stringify(first.cursor))));
    const seen = new Set(first.posts.map((p) => p.sourceId));
    expect(second.posts.some((p) => seen.has(p.sourceId))).toBe(false);
    expect(second.posts.map((p) => p.sourceId)).toContain(later.key.toString());
  });

  it("GitHub: issues and pull requests arrive as Posts; a spent anonymous search limit is a rate limit, not a failure", async () => {
    now = TEST_NOW + 3_600_000;
    sims.world.reset();
    const collector = createGithubCollector(depsOf());
    const out = await collector.poll(input("github"));
    expect(out.posts.length).toBeGreaterThan(1);
    for (const p of out.posts) {
      expect(postProblems(p)).toEqual([]);
      expect(`${p.title ?? ""} ${p.text}`.toLowerCase()).toContain("acme rocket");
    }
    const kinds = new Set(out.posts.map((p) => /\/(issues|pull)\/\d+$/.exec(p.url)?.[1]));
    expect(kinds).toEqual(new Set(["issues", "pull"]));

    // Ten search requests a minute without a token, as GitHub allows; the collector reads the 403's reset.
    let error: unknown;
    for (let i = 0; i < 12 && !error; i++) await collector.poll(input("github")).catch((err: unknown) => (error = err));
    expect(error).toBeInstanceOf(ProviderRateLimited);
    expect((error as ProviderRateLimited).retryAt.getTime()).toBe(Math.ceil((now + 1) / 60_000) * 60_000);
  });
});
