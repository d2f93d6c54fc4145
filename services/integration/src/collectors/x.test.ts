import { ProviderMalformed, ProviderRateLimited, ProviderUnavailable } from "./provider-errors";
import { type CollectorKit, keyword, startCollectorKit, TEST_INTERVAL_SECONDS } from "./query-test-support";
import { postProblems } from "./post-check-test-support";
import { createXCollector, xTime } from "./x";

const searches = (kit: CollectorKit) => kit.sims.world.requests("x").filter((r) => r.path === "/2/tweets/search/recent");

describe("X collector", () => {
  let kit: CollectorKit;
  beforeEach(async () => {
    kit = await startCollectorKit({ platforms: ["x"] });
  });
  afterEach(() => kit.close());

  const minutesAgo = (m: number) => kit.clock.now - m * 60_000;

  it("finds posts of a keyword's value and aliases and maps them to Posts", async () => {
    const p = kit.sims.world.publish("x", { text: "Loving the new Acme Rocket", createdAtMs: minutesAgo(1), author: { handle: "wile", name: "Wile E.", id: "42" }, likes: 7, replies: 2, shares: 5, views: 900 });
    kit.sims.world.publish("x", { text: "acme-rocket-2 is out", createdAtMs: minutesAgo(1) });
    kit.sims.world.publish("x", { text: "nothing to see", createdAtMs: minutesAgo(1) });
    const out = await createXCollector(kit.deps).poll(kit.input([keyword("acme rocket", { aliases: ["acme-rocket-2"] })]));
    expect(out.posts.map((x) => x.text).sort()).toEqual(["Loving the new Acme Rocket", "acme-rocket-2 is out"]);
    const post = out.posts.find((x) => x.sourceId === p.key.toString());
    expect(post).toEqual({
      source: "x",
      sourceId: p.key.toString(),
      url: `https://x.com/wile/status/${p.key}`,
      text: "Loving the new Acme Rocket",
      author: { id: "42", handle: "wile", name: "Wile E.", url: "https://x.com/wile" },
      publishedAt: new Date(minutesAgo(1)).toISOString(),
      lang: "en",
      // shares = retweets + quotes
      metrics: { likes: 7, replies: 2, shares: 5, views: 900 },
    });
    for (const x of out.posts) expect(postProblems(x)).toEqual([]);
    const [req] = searches(kit);
    expect(req?.query.query).toBe('("acme rocket" OR "acme-rocket-2") -is:retweet');
    expect(req?.query).toMatchObject({ max_results: "100", expansions: "author_id", "tweet.fields": "created_at,public_metrics,author_id,lang", "user.fields": "username,name" });
    expect(req?.headers.authorization).toBe("Bearer sim-x-bearer-token");
  });

  it("keeps one keyword's exclusions from hiding another keyword's posts", async () => {
    kit.sims.world.publish("x", { text: "acme beta is buggy", createdAtMs: minutesAgo(1) });
    kit.sims.world.publish("x", { text: "globex beta is great", createdAtMs: minutesAgo(1) });
    kit.sims.world.publish("x", { text: "acme stable is fine", createdAtMs: minutesAgo(1) });
    const out = await createXCollector(kit.deps).poll(kit.input([keyword("acme", { id: "kw_a", excludedTerms: ["beta"] }), keyword("globex", { id: "kw_b" })]));
    expect(out.posts.map((x) => x.text).sort()).toEqual(["acme stable is fine", "globex beta is great"]);
    expect(searches(kit).map((r) => r.query.query)).toEqual(['("acme") -"beta" -is:retweet', '("globex") -is:retweet']);
  });

  it("filters by language only when every keyword of a query restricts languages", async () => {
    kit.sims.world.publish("x", { text: "acme en francais", lang: "fr", createdAtMs: minutesAgo(1) });
    kit.sims.world.publish("x", { text: "acme auf deutsch", lang: "de", createdAtMs: minutesAgo(1) });
    const collector = createXCollector(kit.deps);
    const restricted = await collector.poll(kit.input([keyword("acme", { id: "kw_a", filters: { languages: ["fr"] } }), keyword("globex", { id: "kw_b", filters: { languages: ["en"] } })]));
    expect(restricted.posts.map((x) => x.lang)).toEqual(["fr"]);
    expect(searches(kit)[0]?.query.query).toBe('("acme" OR "globex") (lang:en OR lang:fr) -is:retweet');
    const open = await collector.poll(kit.input([keyword("acme", { id: "kw_a", filters: { languages: ["fr"] } }), keyword("globex", { id: "kw_b" })]));
    expect(open.posts.map((x) => x.lang).sort()).toEqual(["de", "fr"]);
    expect(searches(kit)[1]?.query.query).toBe('("acme" OR "globex") -is:retweet');
  });

  it("writes handles, hashtags and cashtags as written and splits queries longer than 512 characters", async () => {
    const many = Array.from({ length: 40 }, (_, i) => `product line number ${i}`);
    kit.sims.world.publish("x", { text: "ping @acme about #acmeday and $ACME", createdAtMs: minutesAgo(1) });
    kit.sims.world.publish("x", { text: "the product line number 39 shipped", createdAtMs: minutesAgo(1) });
    const out = await createXCollector(kit.deps).poll(kit.input([keyword("@acme", { id: "kw_a", aliases: ["#acmeday", "$ACME"] }), keyword("product line number 0", { id: "kw_b", aliases: many })]));
    const queries = searches(kit).map((r) => r.query.query ?? "");
    expect(queries.length).toBeGreaterThan(1);
    for (const q of queries) expect(q.length).toBeLessThanOrEqual(512);
    expect(queries[0]).toMatch(/^\(@acme OR #acmeday OR \$ACME OR "product line number 0"/);
    for (const term of many) expect(queries.some((q) => q.includes(`"${term}"`))).toBe(true);
    expect(out.posts.map((x) => x.text).sort()).toEqual(["ping @acme about #acmeday and $ACME", "the product line number 39 shipped"]);
  });

  it("reads every page of a search with next_token", async () => {
    for (let i = 0; i < 250; i++) kit.sims.world.publish("x", { text: `acme post ${i}`, createdAtMs: minutesAgo(4) + i });
    const out = await createXCollector(kit.deps).poll(kit.input([keyword("acme")]));
    expect(new Set(out.posts.map((x) => x.sourceId)).size).toBe(250);
    const reqs = searches(kit);
    expect(reqs).toHaveLength(3);
    expect(reqs[0]?.query.next_token).toBeUndefined();
    expect(reqs[1]?.query.next_token).toBeDefined();
    expect(reqs[2]?.query.next_token).toBeDefined();
  });

  it("finishes a search longer than one poll's pages on the next poll before moving since_id", async () => {
    for (let i = 0; i < 620; i++) kit.sims.world.publish("x", { text: `acme post ${i}`, createdAtMs: minutesAgo(4) + i });
    const collector = createXCollector(kit.deps);
    const first = await collector.poll(kit.input([keyword("acme")]));
    expect(first.posts).toHaveLength(500);
    kit.clock.now += 60_000;
    const newer = kit.sims.world.publish("x", { text: "acme fresh", createdAtMs: kit.clock.now - 1 });
    const second = await collector.poll(kit.input([keyword("acme")], first.cursor));
    expect(second.posts).toHaveLength(120);
    expect(second.posts.some((x) => x.sourceId === newer.key.toString())).toBe(false);
    const third = await collector.poll(kit.input([keyword("acme")], second.cursor));
    expect(third.posts.map((x) => x.sourceId)).toEqual([newer.key.toString()]);
    const all = [...first.posts, ...second.posts, ...third.posts].map((x) => x.sourceId);
    expect(new Set(all).size).toBe(621);
  });

  it("never emits a post twice across polls and resumes from a stored cursor in a new instance", async () => {
    const old = kit.sims.world.publish("x", { text: "acme old", createdAtMs: minutesAgo(2) });
    const first = await createXCollector(kit.deps).poll(kit.input([keyword("acme", { id: "kw_a" })]));
    expect(first.posts.map((x) => x.sourceId)).toEqual([old.key.toString()]);
    kit.clock.now += TEST_INTERVAL_SECONDS * 1000;
    const fresh = kit.sims.world.publish("x", { text: "acme new", createdAtMs: kit.clock.now - 1000 });
    // A restart: a new collector with only the stored (JSON) cursor.
    const restarted = createXCollector(kit.deps);
    const second = await restarted.poll(kit.input([keyword("acme", { id: "kw_a" })], JSON.parse(JSON.stringify(first.cursor))));
    expect(second.posts.map((x) => x.sourceId)).toEqual([fresh.key.toString()]);
    expect(searches(kit)[1]?.query.since_id).toBe(old.key.toString());
    const third = await restarted.poll(kit.input([keyword("acme", { id: "kw_a" })], second.cursor));
    expect(third.posts).toEqual([]);
  });

  it("starts a new query one poll interval back and keeps the cursors of unchanged queries", async () => {
    kit.sims.world.publish("x", { text: "acme too old", createdAtMs: kit.clock.now - 2 * TEST_INTERVAL_SECONDS * 1000 });
    const recent = kit.sims.world.publish("x", { text: "acme recent", createdAtMs: kit.clock.now - (TEST_INTERVAL_SECONDS / 2) * 1000 });
    const collector = createXCollector(kit.deps);
    const first = await collector.poll(kit.input([keyword("acme", { id: "kw_a" })]));
    expect(first.posts.map((x) => x.sourceId)).toEqual([recent.key.toString()]);
    expect(searches(kit)[0]?.query.start_time).toBe(xTime(kit.clock.now - TEST_INTERVAL_SECONDS * 1000));
    kit.clock.now += 60_000;
    const second = await collector.poll(kit.input([keyword("acme", { id: "kw_a" }), keyword("globex", { id: "kw_b", excludedTerms: ["spam"] })], first.cursor));
    expect(second.posts).toEqual([]);
    const [acme, globex] = searches(kit).slice(1);
    expect(acme?.query).toMatchObject({ query: '("acme") -is:retweet', since_id: recent.key.toString() });
    expect(acme?.query.start_time).toBeUndefined();
    expect(globex?.query).toMatchObject({ query: '("globex") -"spam" -is:retweet', start_time: xTime(kit.clock.now - TEST_INTERVAL_SECONDS * 1000) });
  });

  it("looks back a first search's window for a query with no cursor, at most X's 7 days", async () => {
    const day = kit.sims.world.publish("x", { text: "acme yesterday", createdAtMs: kit.clock.now - 20 * 3_600_000 });
    kit.sims.world.publish("x", { text: "acme the day before", createdAtMs: kit.clock.now - 30 * 3_600_000 });
    const collector = createXCollector(kit.deps);
    const first = await collector.poll({ ...kit.input([keyword("acme")]), lookbackMs: 24 * 3_600_000 });
    expect(first.posts.map((x) => x.sourceId)).toEqual([day.key.toString()]);
    expect(searches(kit)[0]?.query.start_time).toBe(xTime(kit.clock.now - 24 * 3_600_000));
    await collector.poll({ ...kit.input([keyword("acme")]), lookbackMs: 30 * 86_400_000 });
    expect(searches(kit)[1]?.query.start_time).toBe(xTime(kit.clock.now - 7 * 86_400_000 + 60_000));
  });

  it("resumes from the start of X's 7-day window when its cursor is older than that", async () => {
    kit.sims.world.publish("x", { text: "acme week one", createdAtMs: minutesAgo(1) });
    const collector = createXCollector(kit.deps);
    const first = await collector.poll(kit.input([keyword("acme")]));
    expect(first.posts).toHaveLength(1);
    kit.clock.now += 8 * 86_400_000;
    const later = kit.sims.world.publish("x", { text: "acme week two", createdAtMs: minutesAgo(1) });
    const second = await collector.poll(kit.input([keyword("acme")], first.cursor));
    expect(second.posts.map((x) => x.sourceId)).toEqual([later.key.toString()]);
    const req = searches(kit)[1];
    expect(req?.query.since_id).toBeUndefined();
    expect(req?.query.start_time).toBe(xTime(kit.clock.now - 7 * 86_400_000 + 60_000));
  });

  it("sends start_time as X documents it, YYYY-MM-DDTHH:mm:ssZ without milliseconds", async () => {
    kit.clock.now += 123;
    const recent = kit.sims.world.publish("x", { text: "acme now", createdAtMs: kit.clock.now - 1_000 });
    const out = await createXCollector(kit.deps).poll(kit.input([keyword("acme")]));
    expect(out.posts.map((x) => x.sourceId)).toEqual([recent.key.toString()]);
    expect(searches(kit)[0]?.query.start_time).toBe("2026-11-23T11:55:00Z");
  });

  it("starts afresh from a cursor it cannot read", async () => {
    kit.sims.world.publish("x", { text: "acme", createdAtMs: minutesAgo(1) });
    const out = await createXCollector(kit.deps).poll(kit.input([keyword("acme")], { v: 1, queries: { '("acme") -is:retweet': { sinceId: "not-a-number" } } }));
    expect(out.posts).toHaveLength(1);
  });

  it("throws ProviderRateLimited with the simulator's reset on 429", async () => {
    kit.sims.world.fail("x", { status: 429, retryAfterSeconds: 120 });
    const err = await createXCollector(kit.deps)
      .poll(kit.input([keyword("acme")]))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderRateLimited);
    expect((err as ProviderRateLimited).retryAt.getTime()).toBe(Math.ceil((kit.clock.now + 120_000) / 1000) * 1000);
  });

  it("reports the quota left and backs off until the reset when the window is used up", async () => {
    kit.sims.world.publish("x", { text: "acme", createdAtMs: minutesAgo(1) });
    const collector = createXCollector(kit.deps);
    const fresh = await collector.poll(kit.input([keyword("acme")]));
    expect(fresh.quotaLeft).toBe(449);
    expect(fresh.backoffUntil).toBeUndefined();
    const url = `${kit.sims.settings.EARSHOT_X_API_URL}/2/tweets/search/recent?query=nothing`;
    for (let i = 0; i < 448; i++) await fetch(url, { headers: { authorization: "Bearer sim-x-bearer-token" } }).then((r) => r.arrayBuffer());
    // Two queries: the first answer says 0 left, so the second is not asked.
    const spent = await collector.poll(kit.input([keyword("acme", { id: "kw_a" }), keyword("globex", { id: "kw_b", excludedTerms: ["x"] })]));
    expect(spent.quotaLeft).toBe(0);
    const windowEnd = (Math.floor(kit.clock.now / 900_000) + 1) * 900_000;
    expect(spent.backoffUntil?.getTime()).toBe(windowEnd);
    expect(searches(kit).filter((r) => r.query.query?.includes("globex"))).toHaveLength(0);
    expect((spent.cursor as { queries: Record<string, unknown> }).queries['("globex") -"x" -is:retweet']).toBeDefined();
  });

  it("retries a 5xx and succeeds, and gives up as ProviderUnavailable when it persists", async () => {
    kit.sims.world.publish("x", { text: "acme survives", createdAtMs: minutesAgo(1) });
    kit.sims.world.fail("x", { status: 503, count: 2 });
    const collector = createXCollector(kit.deps);
    const out = await collector.poll(kit.input([keyword("acme")]));
    expect(out.posts.map((x) => x.text)).toEqual(["acme survives"]);
    expect(searches(kit)).toHaveLength(3);
    kit.sims.world.fail("x", { status: 500, count: 3 });
    await expect(collector.poll(kit.input([keyword("acme")]))).rejects.toBeInstanceOf(ProviderUnavailable);
  });

  it("skips and counts items it cannot read, logs them at warn, and survives a cut-off answer", async () => {
    for (let i = 0; i < 4; i++) kit.sims.world.publish("x", { text: `acme ${i}`, createdAtMs: minutesAgo(2) + i });
    const collector = createXCollector(kit.deps);
    kit.sims.world.malform("x", 2);
    await expect(collector.poll(kit.input([keyword("acme")]))).rejects.toBeInstanceOf(ProviderMalformed);
    const out = await collector.poll(kit.input([keyword("acme")]));
    expect(out.skipped).toBe(2);
    expect(out.posts).toHaveLength(2);
    expect(kit.logs.some((l) => l.level === 40 && l.source === "x" && l.skipped === 2)).toBe(true);
    const healthy = await collector.poll(kit.input([keyword("acme")]));
    expect(healthy.skipped).toBe(0);
  });

  it("is not configured without a bearer token", () => {
    expect(createXCollector({ ...kit.deps, settings: { ...kit.deps.settings, EARSHOT_X_BEARER_TOKEN: undefined } }).configured).toBe(false);
    expect(createXCollector(kit.deps).configured).toBe(true);
  });
});

describe("X collector against generating simulators", () => {
  it("collects generated posts that contain the searched terms", async () => {
    const kit = await startCollectorKit({ platforms: ["x"], generate: true });
    try {
      const out = await createXCollector(kit.deps).poll(kit.input([keyword("Umbrella Corp", { aliases: ["@umbrella"] })]));
      expect(out.posts.length).toBeGreaterThan(0);
      for (const p of out.posts) {
        expect(p.text.toLowerCase()).toMatch(/umbrella corp|@umbrella/);
        expect(postProblems(p)).toEqual([]);
      }
    } finally {
      await kit.close();
    }
  });
});
