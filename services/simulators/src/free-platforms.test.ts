import { startSimulators, type RunningSimulators } from "./index";

// The Hacker News and GitHub simulators' wire formats, filters, paging and limits, over HTTP.

const NOW = Date.parse("2026-11-23T12:00:00.000Z");

describe("Hacker News and GitHub simulators", () => {
  let sims: RunningSimulators;
  let now = NOW;
  beforeEach(async () => {
    now = NOW;
    sims = await startSimulators({ platforms: ["hackernews", "github"], generate: false, now: () => now });
  });
  afterEach(() => sims.close());

  const hn = (params: Record<string, string>) => fetch(`${sims.settings.EARSHOT_HACKERNEWS_API_URL}/search_by_date?${new URLSearchParams(params)}`);
  const gh = (q: string, more: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    fetch(`${sims.settings.EARSHOT_GITHUB_API_URL}/search/issues?${new URLSearchParams({ q, sort: "created", order: "desc", ...more })}`, { headers });

  it("Hacker News: stories and comments in Algolia's shape, created_at_i strictly after N, tags, pages", async () => {
    const story = sims.world.publish("hackernews", { text: "Acme launches", title: "Show HN: Acme", createdAtMs: NOW - 5_000, author: { handle: "pg" } });
    const comment = sims.world.publish("hackernews", { text: "Acme <3 & more", title: "Show HN: Acme", kind: "comment", parentKey: story.key, createdAtMs: NOW - 2_000, author: { handle: "dang" } });
    sims.world.publish("hackernews", { text: "unrelated", createdAtMs: NOW - 1_000 });
    const all = (await (await hn({ query: "acme", tags: "(story,comment)", hitsPerPage: "1", page: "0" })).json()) as { hits: Array<Record<string, unknown>>; nbHits: number; nbPages: number };
    expect({ nbHits: all.nbHits, nbPages: all.nbPages, ids: all.hits.map((h) => h.objectID) }).toEqual({ nbHits: 2, nbPages: 2, ids: [comment.key.toString()] });
    expect(all.hits[0]).toMatchObject({ created_at_i: Math.floor((NOW - 2_000) / 1000), author: "dang", _tags: expect.arrayContaining(["comment"]), story_title: "Show HN: Acme", comment_text: "<p>Acme &lt;3 &amp; more</p>", title: null });
    const page1 = (await (await hn({ query: "acme", tags: "(story,comment)", hitsPerPage: "1", page: "1" })).json()) as { hits: Array<Record<string, unknown>> };
    expect(page1.hits[0]).toMatchObject({ objectID: story.key.toString(), title: "Show HN: Acme", story_text: "Acme launches", _tags: expect.arrayContaining(["story"]) });
    const storiesOnly = (await (await hn({ query: "acme", tags: "story" })).json()) as { nbHits: number };
    expect(storiesOnly.nbHits).toBe(1);
    // created_at_i > N excludes the post created in second N itself.
    const after = (await (await hn({ query: "acme", numericFilters: `created_at_i>${Math.floor((NOW - 2_000) / 1000)}` })).json()) as { nbHits: number };
    expect(after.nbHits).toBe(0);
    sims.world.fail("hackernews", { status: 429, retryAfterSeconds: 7 });
    const limited = await hn({ query: "acme" });
    expect({ status: limited.status, retryAfter: limited.headers.get("retry-after") }).toEqual({ status: 429, retryAfter: "7" });
  });

  it("GitHub: issues apart from pull requests, created:> bound, pages, rate-limit headers and 403 once spent", async () => {
    Array.from({ length: 8 }, (_, i) => sims.world.publish("github", { text: `Acme crashes on start ${i}`, title: `Acme bug ${i}`, createdAtMs: NOW - (i + 1) * 60_000 }));
    const items = async (res: Response) => ((await res.json()) as { total_count: number; items: Array<Record<string, unknown>> });
    const issues = await items(await gh('"acme" is:issue'));
    const prs = await items(await gh('"acme" is:pr'));
    expect(issues.total_count + prs.total_count).toBe(8);
    expect(issues.items.every((i) => !("pull_request" in i) && /\/issues\/\d+$/.test(String(i.html_url)))).toBe(true);
    expect(prs.items.every((i) => typeof (i.pull_request as { url?: string })?.url === "string" && /\/pull\/\d+$/.test(String(i.html_url)))).toBe(true);
    expect(issues.items[0]).toMatchObject({ id: expect.any(Number), number: expect.any(Number), user: { login: expect.any(String) }, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
    const recent = await items(await gh(`"acme" is:issue created:>${new Date(NOW - 4.5 * 60_000).toISOString()}`));
    const recentPrs = await items(await gh(`"acme" is:pr created:>${new Date(NOW - 4.5 * 60_000).toISOString()}`));
    expect(recent.total_count + recentPrs.total_count).toBe(4);
    const paged = await items(await gh('"acme" is:issue', { per_page: "1", page: "2" }));
    expect(paged.items.map((i) => i.id)).toEqual([issues.items[1]?.id]);

    // The sixth request of ten a minute; the window resets at the minute's end.
    const sixth = await gh('"acme" is:issue');
    expect({ limit: sixth.headers.get("x-ratelimit-limit"), remaining: sixth.headers.get("x-ratelimit-remaining"), reset: sixth.headers.get("x-ratelimit-reset") }).toEqual({
      limit: "10",
      remaining: "4",
      reset: String((Math.floor(NOW / 60_000) + 1) * 60),
    });
    for (let i = 0; i < 4; i++) expect((await gh('"acme" is:issue')).status).toBe(200);
    const spent = await gh('"acme" is:issue');
    expect({ status: spent.status, remaining: spent.headers.get("x-ratelimit-remaining") }).toEqual({ status: 403, remaining: "0" });
    // A token triples the allowance, in a window of its own.
    expect((await gh('"acme" is:issue', {}, { authorization: "Bearer anything" })).headers.get("x-ratelimit-limit")).toBe("30");
    now += 60_000;
    expect((await gh('"acme" is:issue')).status).toBe(200);
    expect((await gh("is:issue")).status).toBe(422);
  });
});
