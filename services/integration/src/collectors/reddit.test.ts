import { ProviderMalformed, ProviderRateLimited, ProviderRejected } from "./provider-errors";
import { type CollectorKit, keyword, startCollectorKit, TEST_INTERVAL_SECONDS, TEST_NOW } from "./query-test-support";
import { postProblems } from "./post-check-test-support";
import { createRedditCollector } from "./reddit";

const TOKEN_PATH = "/api/v1/access_token";
const apiCalls = (kit: CollectorKit) => kit.sims.world.requests("reddit").filter((r) => r.path !== TOKEN_PATH);
const tokenCalls = (kit: CollectorKit) => kit.sims.world.requests("reddit").filter((r) => r.path === TOKEN_PATH);

describe("Reddit collector", () => {
  let kit: CollectorKit;
  beforeEach(async () => {
    kit = await startCollectorKit({ platforms: ["reddit"] });
  });
  afterEach(() => kit.close());

  const minutesAgo = (m: number) => kit.clock.now - m * 60_000;

  it("searches site-wide for phrases and aliases and maps links to Posts", async () => {
    const p = kit.sims.world.publish("reddit", { title: "Acme Rocket review", text: "It flies.", subreddit: "gadgets", createdAtMs: minutesAgo(1), author: { handle: "wile_e", id: "1234" }, likes: 12, replies: 3 });
    kit.sims.world.publish("reddit", { title: "Roadrunner", text: "beep beep rocket-2", createdAtMs: minutesAgo(1) });
    kit.sims.world.publish("reddit", { title: "Unrelated", text: "nothing", createdAtMs: minutesAgo(1) });
    const out = await createRedditCollector(kit.deps).poll(kit.input([keyword("acme rocket", { aliases: ["rocket-2"] })]));
    expect(out.posts.map((x) => x.title).sort()).toEqual(["Acme Rocket review", "Roadrunner"]);
    const id36 = p.key.toString(36);
    expect(out.posts.find((x) => x.title === "Acme Rocket review")).toEqual({
      source: "reddit",
      sourceId: `t3_${id36}`,
      url: `https://www.reddit.com/r/gadgets/comments/${id36}/acme_rocket_review/`,
      title: "Acme Rocket review",
      text: "It flies.",
      author: { id: `t2_${(1234).toString(36)}`, handle: "wile_e", name: "wile_e", url: "https://www.reddit.com/user/wile_e" },
      subreddit: "gadgets",
      publishedAt: new Date(minutesAgo(1)).toISOString(),
      metrics: { likes: 12, replies: 3, shares: 0, views: 0 },
    });
    for (const x of out.posts) expect(postProblems(x)).toEqual([]);
    const [search] = apiCalls(kit);
    expect(search?.path).toBe("/search");
    expect(search?.query).toMatchObject({ q: '("acme rocket" OR "rocket-2")', sort: "new", type: "link", limit: "100", raw_json: "1", t: "hour" });
    expect(search?.headers["user-agent"]).toBe(kit.deps.settings.EARSHOT_REDDIT_USER_AGENT);
  });

  it("writes exclusions with NOT, kept to the keywords they belong to", async () => {
    kit.sims.world.publish("reddit", { title: "acme beta", text: "", createdAtMs: minutesAgo(1) });
    kit.sims.world.publish("reddit", { title: "globex beta", text: "", createdAtMs: minutesAgo(1) });
    const out = await createRedditCollector(kit.deps).poll(kit.input([keyword("acme", { id: "kw_a", excludedTerms: ["beta"] }), keyword("globex", { id: "kw_b" })]));
    expect(out.posts.map((x) => x.title)).toEqual(["globex beta"]);
    expect(apiCalls(kit).map((r) => r.query.q)).toEqual(['("acme") NOT "beta"', '("globex")']);
  });

  it("searches the subreddits a keyword names and reads their comments with the link as parent", async () => {
    const link = kit.sims.world.publish("reddit", { title: "acme in rust", text: "", subreddit: "rust", createdAtMs: minutesAgo(3) });
    kit.sims.world.publish("reddit", { title: "acme elsewhere", text: "", subreddit: "golang", createdAtMs: minutesAgo(3) });
    const comment = kit.sims.world.publish("reddit", { kind: "comment", text: "I use acme daily", subreddit: "rust", parentKey: link.key, createdAtMs: minutesAgo(2) });
    const out = await createRedditCollector(kit.deps).poll(kit.input([keyword("acme", { filters: { subreddits: ["r/Rust"] } })]));
    expect(apiCalls(kit).map((r) => [r.path, r.query.restrict_sr])).toEqual([
      ["/r/rust/search", "1"],
      ["/r/rust/comments", undefined],
    ]);
    expect(out.posts.map((x) => x.sourceId).sort()).toEqual([`t1_${comment.key.toString(36)}`, `t3_${link.key.toString(36)}`].sort());
    const c = out.posts.find((x) => x.sourceId.startsWith("t1_"));
    expect(c).toMatchObject({ text: "I use acme daily", parentId: `t3_${link.key.toString(36)}`, subreddit: "rust", url: `https://www.reddit.com/r/rust/comments/${link.key.toString(36)}/comment/${comment.key.toString(36)}/` });
    expect(c?.title).toBeUndefined();
    for (const x of out.posts) expect(postProblems(x)).toEqual([]);
  });

  it("pages with after across several pages", async () => {
    for (let i = 0; i < 230; i++) kit.sims.world.publish("reddit", { title: `acme ${i}`, text: "", createdAtMs: minutesAgo(4) + i });
    const out = await createRedditCollector(kit.deps).poll(kit.input([keyword("acme")]));
    expect(new Set(out.posts.map((x) => x.sourceId)).size).toBe(230);
    const calls = apiCalls(kit);
    expect(calls).toHaveLength(3);
    expect(calls[1]?.query.after).toMatch(/^t3_/);
  });

  it("stops paging at what the previous poll saw, never emits twice, and resumes from a stored cursor in a new instance", async () => {
    for (let i = 0; i < 150; i++) kit.sims.world.publish("reddit", { title: `acme ${i}`, text: "", createdAtMs: minutesAgo(4) + i });
    const first = await createRedditCollector(kit.deps).poll(kit.input([keyword("acme", { id: "kw_a" })]));
    expect(first.posts).toHaveLength(150);
    kit.clock.now += TEST_INTERVAL_SECONDS * 1000;
    const fresh = kit.sims.world.publish("reddit", { title: "acme fresh", text: "", createdAtMs: kit.clock.now - 1000 });
    const restarted = createRedditCollector(kit.deps);
    const before = apiCalls(kit).length;
    const second = await restarted.poll(kit.input([keyword("acme", { id: "kw_a" })], JSON.parse(JSON.stringify(first.cursor))));
    expect(second.posts.map((x) => x.sourceId)).toEqual([`t3_${fresh.key.toString(36)}`]);
    expect(apiCalls(kit).length - before).toBe(1);
    const third = await restarted.poll(kit.input([keyword("acme", { id: "kw_a" })], second.cursor));
    expect(third.posts).toEqual([]);
  });

  it("reads a listing longer than one poll's pages on the next poll before moving past it", async () => {
    const published = Array.from({ length: 520 }, (_, i) => kit.sims.world.publish("reddit", { title: `acme ${i}`, text: "", createdAtMs: minutesAgo(4) + i * 100 }));
    const collector = createRedditCollector(kit.deps);
    const first = await collector.poll(kit.input([keyword("acme", { id: "kw_a" })]));
    expect(first.posts).toHaveLength(500);
    kit.clock.now += TEST_INTERVAL_SECONDS * 1000;
    const fresh = kit.sims.world.publish("reddit", { title: "acme fresh", text: "", createdAtMs: kit.clock.now - 1000 });
    const second = await createRedditCollector(kit.deps).poll(kit.input([keyword("acme", { id: "kw_a" })], JSON.parse(JSON.stringify(first.cursor))));
    expect(second.posts.map((x) => x.title)).toEqual(Array.from({ length: 20 }, (_, i) => `acme ${19 - i}`));
    const third = await collector.poll(kit.input([keyword("acme", { id: "kw_a" })], second.cursor));
    expect(third.posts.map((x) => x.sourceId)).toEqual([`t3_${fresh.key.toString(36)}`]);
    expect((await collector.poll(kit.input([keyword("acme", { id: "kw_a" })], third.cursor))).posts).toEqual([]);
    const all = [...first.posts, ...second.posts, ...third.posts].map((x) => x.sourceId);
    expect(new Set(all)).toEqual(new Set([...published, fresh].map((p) => `t3_${p.key.toString(36)}`)));
  });

  it("looks back one poll interval for a listing it never read and keeps unchanged listings' cursors", async () => {
    kit.sims.world.publish("reddit", { title: "acme ancient", text: "", createdAtMs: kit.clock.now - 3 * TEST_INTERVAL_SECONDS * 1000 });
    const recent = kit.sims.world.publish("reddit", { title: "acme recent", text: "", createdAtMs: minutesAgo(1) });
    const collector = createRedditCollector(kit.deps);
    const first = await collector.poll(kit.input([keyword("acme", { id: "kw_a" })]));
    expect(first.posts.map((x) => x.sourceId)).toEqual([`t3_${recent.key.toString(36)}`]);
    kit.sims.world.publish("reddit", { title: "globex ancient", text: "", createdAtMs: kit.clock.now - 3 * TEST_INTERVAL_SECONDS * 1000 });
    const second = await collector.poll(kit.input([keyword("acme", { id: "kw_a" }), keyword("globex", { id: "kw_b", filters: { subreddits: ["news"] } })], first.cursor));
    expect(second.posts).toEqual([]);
    const cursor = second.cursor as { queries: Record<string, { newest?: string; floorMs?: number }> };
    expect(cursor.queries['/search ("acme")']?.newest).toBe(`t3_${recent.key.toString(36)}`);
    expect(cursor.queries['/r/news/search ("globex")']?.floorMs).toBe(kit.clock.now - TEST_INTERVAL_SECONDS * 1000);
  });

  it("keeps what a first search's window holds for a listing it never read, where a poll would drop it as too old", async () => {
    const minutes = kit.sims.world.publish("reddit", { title: "acme a few minutes ago", text: "", createdAtMs: minutesAgo(6) });
    const hours = kit.sims.world.publish("reddit", { title: "acme this morning", text: "", createdAtMs: kit.clock.now - 20 * 3_600_000 });
    kit.sims.world.publish("reddit", { title: "acme the day before", text: "", createdAtMs: kit.clock.now - 30 * 3_600_000 });
    const collector = createRedditCollector(kit.deps);
    expect((await collector.poll(kit.input([keyword("acme")]))).posts).toEqual([]);
    const first = await collector.poll({ ...kit.input([keyword("acme")]), lookbackMs: 24 * 3_600_000 });
    expect(first.posts.map((x) => x.sourceId)).toEqual([minutes, hours].map((p) => `t3_${p.key.toString(36)}`));
  });

  it("asks for one token for several polls and sends it with Basic credentials and the User-Agent", async () => {
    const collector = createRedditCollector(kit.deps);
    for (let i = 0; i < 3; i++) await collector.poll(kit.input([keyword("acme")]));
    expect(tokenCalls(kit)).toHaveLength(1);
    const [call] = tokenCalls(kit);
    expect(call?.headers.authorization).toBe(`Basic ${Buffer.from("sim-reddit-client:sim-reddit-secret").toString("base64")}`);
    expect(call?.body).toBe("grant_type=client_credentials");
    expect(call?.headers["user-agent"]).toBe(kit.deps.settings.EARSHOT_REDDIT_USER_AGENT);
    for (const r of apiCalls(kit)) expect(r.headers.authorization).toMatch(/^bearer sim-reddit-token-/);
  });

  it("replaces a token Reddit refuses once and carries on", async () => {
    // The collector's clock stands still while the simulator's passes the token's expiry: Reddit answers 401.
    const collector = createRedditCollector({ ...kit.deps, now: () => new Date(TEST_NOW) });
    await collector.poll(kit.input([keyword("acme")]));
    kit.clock.now += 2 * 86_400_000;
    const fresh = kit.sims.world.publish("reddit", { title: "acme after refresh", text: "", createdAtMs: kit.clock.now - 1000 });
    const out = await collector.poll(kit.input([keyword("acme")]));
    expect(out.posts.map((x) => x.title)).toEqual([fresh.title]);
    expect(tokenCalls(kit)).toHaveLength(2);
    const calls = apiCalls(kit);
    expect(calls).toHaveLength(3);
    expect(calls[1]?.headers.authorization).toBe(calls[0]?.headers.authorization);
    expect(calls[2]?.headers.authorization).not.toBe(calls[1]?.headers.authorization);
  });

  it("keeps another project's poll going when the poll that asked for the shared token is aborted", async () => {
    const p = kit.sims.world.publish("reddit", { title: "acme shared", text: "", createdAtMs: minutesAgo(1) });
    const collector = createRedditCollector(kit.deps);
    const stopped = new AbortController();
    // The first poll starts the token request; the second waits on it; then the first is stopped.
    const first = collector.poll({ ...kit.input([keyword("acme")]), projectId: "prj_stopped", signal: stopped.signal });
    const second = collector.poll({ ...kit.input([keyword("acme")]), projectId: "prj_other" });
    stopped.abort(new Error("project paused"));
    await expect(first).rejects.toThrow("project paused");
    expect((await second).posts.map((x) => x.sourceId)).toEqual([`t3_${p.key.toString(36)}`]);
    expect(tokenCalls(kit)).toHaveLength(1);
  });

  it("asks for a new token when the cached one is about to expire", async () => {
    const collector = createRedditCollector(kit.deps);
    await collector.poll(kit.input([keyword("acme")]));
    kit.clock.now += 86_400_000 - 60_000;
    await collector.poll(kit.input([keyword("acme")]));
    expect(tokenCalls(kit)).toHaveLength(2);
  });

  it("fails with ProviderRejected on bad client credentials", async () => {
    const collector = createRedditCollector({ ...kit.deps, settings: { ...kit.deps.settings, EARSHOT_REDDIT_CLIENT_SECRET: "wrong" } });
    const err = await collector.poll(kit.input([keyword("acme")])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderRejected);
    expect((err as ProviderRejected).status).toBe(401);
  });

  it("throws ProviderRateLimited with the reset from X-Ratelimit-Reset on 429", async () => {
    kit.sims.world.fail("reddit", { status: 429, retryAfterSeconds: 90 });
    const err = await createRedditCollector(kit.deps)
      .poll(kit.input([keyword("acme")]))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderRateLimited);
    expect((err as ProviderRateLimited).retryAt.getTime()).toBe(kit.clock.now + 90_000);
  });

  it("reports the requests left in the window", async () => {
    const out = await createRedditCollector(kit.deps).poll(kit.input([keyword("acme", { filters: { subreddits: ["rust"] } })]));
    expect(out.quotaLeft).toBe(998);
    expect(out.backoffUntil).toBeUndefined();
  });

  it("retries a 5xx and then succeeds", async () => {
    kit.sims.world.publish("reddit", { title: "acme survives", text: "", createdAtMs: minutesAgo(1) });
    kit.sims.world.fail("reddit", { status: 502, count: 2 });
    const out = await createRedditCollector(kit.deps).poll(kit.input([keyword("acme")]));
    expect(out.posts.map((x) => x.title)).toEqual(["acme survives"]);
    expect(apiCalls(kit)).toHaveLength(3);
  });

  it("skips and counts items it cannot read, logs them at warn, and survives a cut-off answer", async () => {
    for (let i = 0; i < 4; i++) kit.sims.world.publish("reddit", { title: `acme ${i}`, text: "", createdAtMs: minutesAgo(2) + i });
    const collector = createRedditCollector(kit.deps);
    kit.sims.world.malform("reddit", 2);
    await expect(collector.poll(kit.input([keyword("acme")]))).rejects.toBeInstanceOf(ProviderMalformed);
    const out = await collector.poll(kit.input([keyword("acme")]));
    expect(out.skipped).toBe(2);
    expect(out.posts).toHaveLength(2);
    expect(kit.logs.some((l) => l.level === 40 && l.source === "reddit" && l.skipped === 2)).toBe(true);
  });

  it("is not configured without a client id and secret", () => {
    expect(createRedditCollector({ ...kit.deps, settings: { ...kit.deps.settings, EARSHOT_REDDIT_CLIENT_ID: undefined } }).configured).toBe(false);
    expect(createRedditCollector(kit.deps).configured).toBe(true);
  });
});

describe("Reddit collector against generating simulators", () => {
  it("collects generated links and comments that contain the searched terms", async () => {
    const kit = await startCollectorKit({ platforms: ["reddit"], generate: true });
    try {
      const collector = createRedditCollector(kit.deps);
      const first = await collector.poll(kit.input([keyword("Umbrella Corp", { filters: { subreddits: ["biotech"] } })]));
      expect(first.posts.some((p) => p.sourceId.startsWith("t3_"))).toBe(true);
      expect(first.posts.some((p) => p.sourceId.startsWith("t1_"))).toBe(true);
      for (const p of first.posts) {
        expect(`${p.title ?? ""} ${p.text}`.toLowerCase()).toContain("umbrella corp");
        expect(p.subreddit).toBe("biotech");
        expect(postProblems(p)).toEqual([]);
      }
    } finally {
      await kit.close();
    }
  });
});
