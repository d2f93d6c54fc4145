import { startSimulators, type RunningSimulators } from "./index";

const NOW = Date.parse("2026-11-23T12:00:00.000Z");
const AUTH = { authorization: "Bearer sim-x-bearer-token" };

describe("X simulator", () => {
  let sims: RunningSimulators;
  let now = NOW;
  beforeEach(async () => {
    now = NOW;
    sims = await startSimulators({ platforms: ["x"], generate: false, now: () => now });
  });
  afterEach(() => sims.close());

  const search = (params: Record<string, string>, headers: Record<string, string> = AUTH) => fetch(`${sims.settings.EARSHOT_X_API_URL}/2/tweets/search/recent?${new URLSearchParams(params)}`, { headers });

  it("answers recent search in X's exact wire shape with rate-limit headers", async () => {
    const p = sims.world.publish("x", { text: "acme rocket", createdAtMs: NOW - 1000, author: { id: "7", handle: "wile", name: "Wile" }, likes: 3, replies: 1, shares: 5, views: 40 });
    const res = await search({ query: '"acme" -is:retweet', max_results: "10" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-rate-limit-limit")).toBe("450");
    expect(res.headers.get("x-rate-limit-remaining")).toBe("449");
    expect(res.headers.get("x-rate-limit-reset")).toBe(String((Math.floor(NOW / 900_000) + 1) * 900));
    expect(await res.json()).toEqual({
      data: [
        {
          id: p.key.toString(),
          text: "acme rocket",
          author_id: "7",
          created_at: new Date(NOW - 1000).toISOString(),
          lang: "en",
          public_metrics: { retweet_count: 4, reply_count: 1, like_count: 3, quote_count: 1, impression_count: 40 },
        },
      ],
      includes: { users: [{ id: "7", name: "Wile", username: "wile" }] },
      meta: { newest_id: p.key.toString(), oldest_id: p.key.toString(), result_count: 1 },
    });
  });

  it("answers no data key and a zero count when nothing matches", async () => {
    const res = await search({ query: "nothing" });
    expect(await res.json()).toEqual({ meta: { result_count: 0 } });
  });

  it("refuses a missing bearer token with X's 401 problem", async () => {
    const res = await search({ query: "acme" }, {});
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ title: "Unauthorized", type: "about:blank", status: 401, detail: "Unauthorized" });
  });

  it("refuses a query over 512 characters and max_results outside 10..100 in X's error shape", async () => {
    const long = "a".repeat(513);
    const res = await search({ query: long });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ parameters: Record<string, string[]>; message: string }>; title: string; detail: string; type: string };
    expect(body.title).toBe("Invalid Request");
    expect(body.errors[0]?.parameters).toEqual({ query: [long] });
    expect(typeof body.detail).toBe("string");
    expect(typeof body.type).toBe("string");
    for (const n of ["9", "101", "ten"]) {
      const r = await search({ query: "acme", max_results: n });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { errors: Array<{ parameters: object }> }).errors[0]?.parameters).toEqual({ max_results: [n] });
    }
    expect((await search({ query: "(acme" })).status).toBe(400);
  });

  it("pages with an opaque next_token and answers only newer ids after since_id", async () => {
    const posts = Array.from({ length: 25 }, (_, i) => sims.world.publish("x", { text: `acme ${i}`, createdAtMs: NOW - 100_000 + i }));
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const body = (await (await search({ query: "acme", max_results: "10", ...(token ? { next_token: token } : {}) })).json()) as { data: Array<{ id: string }>; meta: { next_token?: string } };
      seen.push(...body.data.map((d) => d.id));
      token = body.meta.next_token;
    } while (token);
    expect(seen).toEqual(posts.map((p) => p.key.toString()).reverse());
    const since = (await (await search({ query: "acme", since_id: posts[22]!.key.toString() })).json()) as { data: Array<{ id: string }> };
    expect(since.data.map((d) => d.id)).toEqual([posts[24]!.key.toString(), posts[23]!.key.toString()]);
  });

  it("refuses a since_id or start_time older than the 7 days recent search covers", async () => {
    const old = sims.world.keyAt(NOW - 8 * 86_400_000, 1).toString();
    const bySince = await search({ query: "acme", since_id: old });
    expect(bySince.status).toBe(400);
    expect(((await bySince.json()) as { errors: Array<{ parameters: object }> }).errors[0]?.parameters).toEqual({ since_id: [old] });
    const start = new Date(NOW - 8 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    expect((await search({ query: "acme", start_time: start })).status).toBe(400);
  });

  it("refuses a start_time with fractions of a second, as X documents YYYY-MM-DDTHH:mm:ssZ", async () => {
    const refused = await search({ query: "acme", start_time: new Date(NOW - 60_000).toISOString() });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: Array<{ parameters: object }> }).errors[0]?.parameters).toEqual({ start_time: [new Date(NOW - 60_000).toISOString()] });
    expect((await search({ query: "acme", start_time: new Date(NOW - 60_000).toISOString().replace(/\.\d{3}Z$/, "Z") })).status).toBe(200);
  });

  it("answers faults: 429 with a zero remaining and the reset, and 5xx with a JSON body", async () => {
    sims.world.fail("x", { status: 429, retryAfterSeconds: 30 });
    const limited = await search({ query: "acme" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-rate-limit-remaining")).toBe("0");
    expect(limited.headers.get("x-rate-limit-reset")).toBe(String(Math.ceil((NOW + 30_000) / 1000)));
    sims.world.fail("x", { status: 503 });
    const down = await search({ query: "acme" });
    expect(down.status).toBe(503);
    expect(((await down.json()) as { status: number }).status).toBe(503);
  });

  it("answers 429 once the 15-minute window's 450 requests are spent, and a new window after the reset", async () => {
    for (let i = 0; i < 450; i++) await (await search({ query: "acme" })).arrayBuffer();
    expect((await search({ query: "acme" })).status).toBe(429);
    now = (Math.floor(NOW / 900_000) + 1) * 900_000;
    const fresh = await search({ query: "acme" });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("x-rate-limit-remaining")).toBe("449");
  });

  it("allows the requests per window it is told to, for load runs", async () => {
    const roomy = await startSimulators({ platforms: ["x", "reddit"], generate: false, now: () => now, rateLimits: { x: 2, reddit: 5000 } });
    try {
      const get = () => fetch(`${roomy.settings.EARSHOT_X_API_URL}/2/tweets/search/recent?query=acme`, { headers: AUTH });
      expect((await get()).headers.get("x-rate-limit-limit")).toBe("2");
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(429);
    } finally {
      await roomy.close();
    }
  });

  it("answers malformed bodies in turn: cut-off JSON, then items without ids", async () => {
    for (let i = 0; i < 4; i++) sims.world.publish("x", { text: `acme ${i}`, createdAtMs: NOW - 1000 + i });
    sims.world.malform("x", 2);
    const cut = await (await search({ query: "acme" })).text();
    expect(() => JSON.parse(cut)).toThrow();
    const partial = (await (await search({ query: "acme" })).json()) as { data: Array<{ id?: string }> };
    expect(partial.data.filter((d) => d.id === undefined)).toHaveLength(2);
    expect(partial.data.filter((d) => d.id !== undefined)).toHaveLength(2);
  });

  it("generates posts that contain the searched terms in the searched language", async () => {
    await sims.close();
    sims = await startSimulators({ platforms: ["x"], generate: true, now: () => now });
    const body = (await (await search({ query: '("Umbrella Corp" OR #umbrella) lang:fr' })).json()) as { data: Array<{ text: string; lang: string }> };
    expect(body.data.length).toBeGreaterThan(0);
    for (const d of body.data) {
      expect(d.text.toLowerCase()).toMatch(/umbrella corp|#umbrella/);
      expect(d.lang).toBe("fr");
    }
  });
});
