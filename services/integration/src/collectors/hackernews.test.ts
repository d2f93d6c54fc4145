import { createLogger } from "@earshot/platform";
import { integrationSettingsOf } from "../config";
import type { CollectorDeps } from "./collector-deps";
import { createHackernewsCollector, HN_HITS_PER_PAGE } from "./hackernews";
import { type HnFake, startHnFake } from "./hackernews-fake";
import { hnText } from "./hackernews-map";
import { postProblems } from "./post-check-test-support";
import { ProviderRateLimited, ProviderUnavailable } from "./provider-errors";
import { ProviderHttp } from "./provider-http";
import { keyword, seededRandom, TEST_NOW } from "./query-test-support";

const sec = (msAgo: number) => Math.floor((TEST_NOW - msAgo) / 1000);

describe("Hacker News collector", () => {
  let fake: HnFake;
  let deps: CollectorDeps;
  beforeAll(async () => {
    fake = await startHnFake();
    deps = {
      settings: integrationSettingsOf({ EARSHOT_HACKERNEWS_API_URL: fake.url, EARSHOT_POLL_INTERVAL_SECONDS: "300" }),
      http: new ProviderHttp({ retries: 1, retryBaseMs: 1, random: seededRandom(), now: () => TEST_NOW }),
      quota: { take: () => Promise.reject(new Error("unused")), left: () => Promise.reject(new Error("unused")) },
      logger: createLogger("hn-test", { level: "silent" }),
      now: () => new Date(TEST_NOW),
    };
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.hits.length = 0;
    fake.requests.length = 0;
    fake.failures.length = 0;
  });
  const input = (cursor?: unknown, more: { lookbackMs?: number; now?: number } = {}) => ({
    projectId: "prj_test",
    keywords: [keyword("Acme", { aliases: ["acme rocket"], sources: ["hackernews"] })],
    cursor,
    now: new Date(more.now ?? TEST_NOW),
    signal: new AbortController().signal,
    ...(more.lookbackMs ? { lookbackMs: more.lookbackMs } : {}),
  });

  it("maps stories and comments to Posts: the HN item link, the story's title for a comment, its HTML as text", async () => {
    fake.hits.push(
      { objectID: "101", created_at_i: sec(60_000), author: "pg", _tags: ["story", "author_pg", "story_101"], title: "Show HN: Acme", url: "https://acme.test", story_text: null },
      { objectID: "102", created_at_i: sec(30_000), author: "dang", _tags: ["comment", "author_dang", "story_101"], story_id: 101, story_title: "Show HN: Acme", comment_text: "I <i>love</i> Acme &amp; its &#x27;rockets&#x27;<p>Second para" },
    );
    const out = await createHackernewsCollector(deps).poll(input());
    const byId = Object.fromEntries(out.posts.map((p) => [p.sourceId, p]));
    expect(byId["102"]).toEqual({
      source: "hackernews",
      sourceId: "102",
      url: "https://news.ycombinator.com/item?id=102",
      title: "Show HN: Acme",
      text: "I love Acme & its 'rockets'\n\nSecond para",
      author: { id: "dang", handle: "dang", name: "dang", url: "https://news.ycombinator.com/user?id=dang" },
      publishedAt: new Date(sec(30_000) * 1000).toISOString(),
      parentId: "101",
    });
    expect(byId["101"]).toMatchObject({ title: "Show HN: Acme", text: "https://acme.test", url: "https://news.ycombinator.com/item?id=101" });
    for (const p of out.posts) expect(postProblems(p)).toEqual([]);
    expect(Object.fromEntries(fake.requests[0]!)).toEqual({ query: "acme", tags: "(story,comment)", numericFilters: `created_at_i>${sec(300_000)}`, hitsPerPage: "100", page: "0" });
    expect(fake.requests.map((r) => r.get("query"))).toEqual(["acme", "acme rocket"]);
  });

  it("searches a new keyword 24 h back, pages through every hit, and a restart from the cursor finds only new posts, once", async () => {
    const day = 86_400_000;
    for (let i = 0; i < HN_HITS_PER_PAGE + 30; i++) fake.hits.push({ objectID: String(1000 + i), created_at_i: sec(day - 1000 * (i + 1)), author: "a", _tags: ["story"], title: `Acme news ${i}` });
    fake.hits.push({ objectID: "999", created_at_i: sec(day + 60_000), author: "a", _tags: ["story"], title: "Acme too old" });
    const collector = createHackernewsCollector(deps);
    const first = await collector.poll(input(undefined, { lookbackMs: day }));
    const ids = (o: { posts: Array<{ sourceId: string }> }) => o.posts.map((p) => p.sourceId);
    expect(new Set(ids(first)).size).toBe(HN_HITS_PER_PAGE + 30);
    expect(ids(first)).not.toContain("999");
    // A restart: a new collector from the stored (JSON) cursor sees only what came after.
    const cursor = JSON.parse(JSON.stringify(first.cursor)) as unknown;
    fake.hits.push({ objectID: "2000", created_at_i: sec(0) + 5, author: "b", _tags: ["story"], title: "Acme later" });
    const second = await createHackernewsCollector(deps).poll(input(cursor, { now: TEST_NOW + 10_000 }));
    expect(ids(second)).toEqual(["2000"]);
    const third = await createHackernewsCollector(deps).poll(input(second.cursor, { now: TEST_NOW + 20_000 }));
    expect(ids(third)).toEqual([]);
  });

  it("backs off on 429 until Retry-After, and reports 5xx as unavailable after its retry", async () => {
    fake.failures.push({ status: 429, retryAfter: "120" });
    const limited = await createHackernewsCollector(deps).poll(input()).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ProviderRateLimited);
    expect((limited as ProviderRateLimited).retryAt.getTime()).toBe(TEST_NOW + 120_000);
    fake.failures.push({ status: 503 }, { status: 503 });
    expect(await createHackernewsCollector(deps).poll(input()).catch((e: unknown) => e)).toBeInstanceOf(ProviderUnavailable);
  });

  it("turns comment HTML into text", () => {
    expect(hnText('see <a href="https://x.test">https:&#x2F;&#x2F;x.test</a><p>&lt;b&gt; ok')).toBe("see https://x.test\n\n<b> ok");
  });
});
