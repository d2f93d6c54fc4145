import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ProviderRateLimited } from "../collectors/provider-errors";
import { ProviderHttp } from "../collectors/provider-http";
import { BlueskySearch } from "./search-posts";

// A fake AppView from the XRPC docs: createSession/refreshSession issue tokens, searchPosts needs a current
// access token (400 ExpiredToken otherwise), pages by an opaque cursor, and can answer 429 with RateLimit-Reset.
const NOW = Date.parse("2026-11-28T12:00:00Z");
const POSTS = Array.from({ length: 150 }, (_, i) => ({ uri: `at://did:plc:a/app.bsky.feed.post/${i}`, cid: `c${i}`, author: { did: "did:plc:a", handle: "a.bsky.social" }, record: { text: `earshot ${i}` }, indexedAt: "2026-11-28T11:00:00Z" }));

describe("Bluesky searchPosts against a fake AppView", () => {
  let server: Server;
  let url: string;
  let current = "access-1";
  let limited = false;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const u = new URL(req.url ?? "/", "http://x");
      seen.push(`${req.method} ${u.pathname}`);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(body));
      };
      if (u.pathname === "/xrpc/com.atproto.server.createSession") return send(200, { accessJwt: current, refreshJwt: "refresh-1", did: "did:plc:me", handle: "me.bsky.social" });
      if (u.pathname === "/xrpc/com.atproto.server.refreshSession") return req.headers.authorization === "Bearer refresh-1" ? send(200, { accessJwt: current, refreshJwt: "refresh-1" }) : send(400, { error: "ExpiredToken" });
      if (req.headers.authorization !== `Bearer ${current}`) return send(400, { error: "ExpiredToken", message: "Token has expired" });
      if (limited) return send(429, { error: "RateLimitExceeded" }, { "ratelimit-limit": "3000", "ratelimit-remaining": "0", "ratelimit-reset": String(NOW / 1000 + 30) });
      const from = Number(u.searchParams.get("cursor") ?? 0);
      const limit = Number(u.searchParams.get("limit"));
      const next = from + limit;
      send(200, { posts: POSTS.slice(from, next), ...(next < POSTS.length ? { cursor: String(next) } : {}) });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const http = new ProviderHttp({ retries: 0, now: () => NOW });

  it("signs in with the app password, pages by cursor to the end, and refreshes an expired token", async () => {
    const search = new BlueskySearch(http, url, { identifier: "me.bsky.social", appPassword: "xxxx-xxxx-xxxx-xxxx" });
    const first = await search.page("earshot", new Date(NOW - 86_400_000));
    expect(first.posts).toHaveLength(100);
    current = "access-2";
    const second = await search.page("earshot", new Date(NOW - 86_400_000), first.cursor);
    expect(second.posts.map((p) => p.uri)).toEqual(POSTS.slice(100).map((p) => p.uri));
    expect(second.cursor).toBeUndefined();
    expect(seen.filter((s) => s.includes("Session"))).toEqual(["POST /xrpc/com.atproto.server.createSession", "POST /xrpc/com.atproto.server.refreshSession"]);
  });

  it("a 429 becomes a rate limit with the reset the AppView named", async () => {
    limited = true;
    const search = new BlueskySearch(http, url, { identifier: "me", appPassword: "p" });
    await expect(search.page("earshot", new Date(NOW))).rejects.toEqual(expect.any(ProviderRateLimited));
    await expect(search.page("earshot", new Date(NOW))).rejects.toMatchObject({ retryAt: new Date(NOW + 30_000) });
    limited = false;
  });

  it("without credentials it is not configured and says why", async () => {
    const search = new BlueskySearch(http, url, undefined);
    expect(search.configured).toBe(false);
    await expect(search.page("earshot", new Date(NOW))).rejects.toThrow(/EARSHOT_BLUESKY_APP_PASSWORD/);
  });
});
