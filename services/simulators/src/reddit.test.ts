import { startSimulators, type RunningSimulators } from "./index";

const NOW = Date.parse("2026-11-23T12:00:00.000Z");
const UA = "server:earshot-test:1.0 (by /u/earshot)";
const BASIC = `Basic ${Buffer.from("sim-reddit-client:sim-reddit-secret").toString("base64")}`;

describe("Reddit simulator", () => {
  let sims: RunningSimulators;
  let now = NOW;
  beforeEach(async () => {
    now = NOW;
    sims = await startSimulators({ platforms: ["reddit"], generate: false, now: () => now });
  });
  afterEach(() => sims.close());

  const token = async (authorization = BASIC, body = "grant_type=client_credentials", ua = UA) =>
    fetch(`${sims.settings.EARSHOT_REDDIT_AUTH_URL}/api/v1/access_token`, { method: "POST", headers: { authorization, "user-agent": ua, "content-type": "application/x-www-form-urlencoded" }, body });
  const bearer = async () => ((await (await token()).json()) as { access_token: string }).access_token;
  const api = (path: string, params: Record<string, string>, headers: Record<string, string>) => fetch(`${sims.settings.EARSHOT_REDDIT_API_URL}${path}?${new URLSearchParams(params)}`, { headers });

  it("issues app-only tokens for the client's Basic credentials and refuses others", async () => {
    const res = await token();
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ access_token: expect.any(String), token_type: "bearer", expires_in: 86400, scope: "*" });
    expect((await token(`Basic ${Buffer.from("sim-reddit-client:nope").toString("base64")}`)).status).toBe(401);
    expect((await token(BASIC, "grant_type=client_credentials", "python-requests/2.31")).status).toBe(403);
  });

  it("answers search in Reddit's listing shape with rate-limit headers", async () => {
    const p = sims.world.publish("reddit", { title: "Acme Rocket review", text: "It flies", subreddit: "gadgets", createdAtMs: NOW - 1500, author: { handle: "wile_e", id: "99" }, likes: 4, replies: 2 });
    const res = await api("/search", { q: '"acme rocket"', sort: "new", t: "day", limit: "100", type: "link", raw_json: "1" }, { authorization: `bearer ${await bearer()}`, "user-agent": UA });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-used")).toBe("1");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("999.0");
    expect(res.headers.get("x-ratelimit-reset")).toBe(String(Math.ceil(((Math.floor(NOW / 600_000) + 1) * 600_000 - NOW) / 1000)));
    const id = p.key.toString(36);
    expect(await res.json()).toEqual({
      kind: "Listing",
      data: {
        after: null,
        before: null,
        dist: 1,
        modhash: "",
        children: [
          {
            kind: "t3",
            data: {
              id,
              name: `t3_${id}`,
              title: "Acme Rocket review",
              selftext: "It flies",
              author: "wile_e",
              author_fullname: `t2_${(99).toString(36)}`,
              subreddit: "gadgets",
              subreddit_name_prefixed: "r/gadgets",
              permalink: `/r/gadgets/comments/${id}/acme_rocket_review/`,
              url: `https://www.reddit.com/r/gadgets/comments/${id}/acme_rocket_review/`,
              is_self: true,
              created_utc: (NOW - 1500) / 1000,
              score: 4,
              num_comments: 2,
              over_18: false,
            },
          },
        ],
      },
    });
  });

  it("requires an issued bearer token and a User-Agent in Reddit's form", async () => {
    const t = await bearer();
    expect((await api("/search", { q: "acme" }, { authorization: "bearer made-up", "user-agent": UA })).status).toBe(401);
    expect((await api("/search", { q: "acme" }, { "user-agent": UA })).status).toBe(401);
    expect((await api("/search", { q: "acme" }, { authorization: `bearer ${t}`, "user-agent": "Mozilla/5.0" })).status).toBe(403);
    now += 86_400_001;
    expect((await api("/search", { q: "acme" }, { authorization: `bearer ${t}`, "user-agent": UA })).status).toBe(401);
  });

  it("restricts /r/{sub}/search to the community with restrict_sr and understands NOT, OR and subreddit:", async () => {
    const headers = { authorization: `bearer ${await bearer()}`, "user-agent": UA };
    sims.world.publish("reddit", { title: "acme in rust", text: "", subreddit: "rust", createdAtMs: NOW - 3000 });
    sims.world.publish("reddit", { title: "acme in go", text: "", subreddit: "golang", createdAtMs: NOW - 2000 });
    sims.world.publish("reddit", { title: "globex beta", text: "", subreddit: "rust", createdAtMs: NOW - 1000 });
    const titles = async (path: string, params: Record<string, string>) => ((await (await api(path, params, headers)).json()) as { data: { children: Array<{ data: { title: string } }> } }).data.children.map((c) => c.data.title);
    expect(await titles("/r/rust/search", { q: "acme", restrict_sr: "1" })).toEqual(["acme in rust"]);
    expect(await titles("/r/rust/search", { q: "acme" })).toEqual(["acme in go", "acme in rust"]);
    expect(await titles("/search", { q: '("acme" OR "globex") NOT "beta"' })).toEqual(["acme in go", "acme in rust"]);
    expect(await titles("/search", { q: "acme subreddit:golang" })).toEqual(["acme in go"]);
  });

  it("pages with after and serves a community's newest comments", async () => {
    const headers = { authorization: `bearer ${await bearer()}`, "user-agent": UA };
    const posts = Array.from({ length: 7 }, (_, i) => sims.world.publish("reddit", { title: `acme ${i}`, text: "", subreddit: "rust", createdAtMs: NOW - 10_000 + i }));
    const names: string[] = [];
    let after: string | null = null;
    do {
      const body = (await (await api("/search", { q: "acme", sort: "new", limit: "3", ...(after ? { after } : {}) }, headers)).json()) as { data: { after: string | null; children: Array<{ data: { name: string } }> } };
      names.push(...body.data.children.map((c) => c.data.name));
      after = body.data.after;
    } while (after);
    expect(names).toEqual(posts.map((p) => `t3_${p.key.toString(36)}`).reverse());
    const c = sims.world.publish("reddit", { kind: "comment", text: "nice", subreddit: "rust", parentKey: posts[0]!.key, createdAtMs: NOW - 500 });
    const comments = (await (await api("/r/rust/comments", { limit: "10" }, headers)).json()) as { data: { children: Array<{ kind: string; data: Record<string, unknown> }> } };
    expect(comments.data.children).toEqual([
      {
        kind: "t1",
        data: {
          id: c.key.toString(36),
          name: `t1_${c.key.toString(36)}`,
          body: "nice",
          author: c.author.handle,
          author_fullname: expect.stringMatching(/^t2_/),
          subreddit: "rust",
          permalink: `/r/rust/comments/${posts[0]!.key.toString(36)}/comment/${c.key.toString(36)}/`,
          link_id: `t3_${posts[0]!.key.toString(36)}`,
          parent_id: `t3_${posts[0]!.key.toString(36)}`,
          created_utc: (NOW - 500) / 1000,
          score: 0,
        },
      },
    ]);
  });

  it("answers faults: 429 with the reset in X-Ratelimit-Reset, 5xx with JSON, and malformed bodies in turn", async () => {
    const headers = { authorization: `bearer ${await bearer()}`, "user-agent": UA };
    sims.world.fail("reddit", { status: 429, retryAfterSeconds: 42 });
    const limited = await api("/search", { q: "acme" }, headers);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0.0");
    expect(limited.headers.get("x-ratelimit-reset")).toBe("42");
    sims.world.fail("reddit", { status: 500 });
    const down = await api("/search", { q: "acme" }, headers);
    expect(down.status).toBe(500);
    expect(await down.json()).toEqual({ message: "Internal Server Error", error: 500 });
    for (let i = 0; i < 2; i++) sims.world.publish("reddit", { title: `acme ${i}`, text: "", createdAtMs: NOW - 100 + i });
    sims.world.malform("reddit", 2);
    const cut = await (await api("/search", { q: "acme" }, headers)).text();
    expect(() => JSON.parse(cut)).toThrow();
    const partial = (await (await api("/search", { q: "acme" }, headers)).json()) as { data: { children: Array<{ data: { id?: string } }> } };
    expect(partial.data.children.map((c) => c.data.id === undefined)).toEqual([true, false]);
  });

  it("generates links and comments containing the searched terms", async () => {
    await sims.close();
    sims = await startSimulators({ platforms: ["reddit"], generate: true, now: () => now });
    const headers = { authorization: `bearer ${await bearer()}`, "user-agent": UA };
    const links = (await (await api("/r/biotech/search", { q: '"Umbrella Corp"', restrict_sr: "1" }, headers)).json()) as { data: { children: Array<{ data: { title: string; selftext: string; subreddit: string } }> } };
    expect(links.data.children.length).toBeGreaterThan(0);
    for (const c of links.data.children) {
      expect(`${c.data.title} ${c.data.selftext}`.toLowerCase()).toContain("umbrella corp");
      expect(c.data.subreddit).toBe("biotech");
    }
    const comments = (await (await api("/r/biotech/comments", {}, headers)).json()) as { data: { children: Array<{ data: { body: string; link_id: string } }> } };
    expect(comments.data.children.length).toBeGreaterThan(0);
    for (const c of comments.data.children) expect(c.data.body.toLowerCase()).toContain("umbrella corp");
  });
});
