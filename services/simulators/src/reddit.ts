import type { ServerResponse } from "node:http";
import { basicCredentials, bearerToken, requestTarget, sendJson, sendText } from "./http";
import type { PlatformSimulatorFactory } from "./platform-simulator";
import { matchesQuery, parseQuery, QuerySyntaxError, searchSpecOf } from "./query-syntax";
import { RateWindow } from "./rate-window";
import { SIM_CREDENTIALS, SIM_PREFIXES } from "./settings";
import type { SimPost, SimWorld } from "./world";

// Reddit (reference/protocols.md "Reddit"): an app-only token from `POST {auth}/api/v1/access_token`,
// then the API with `Authorization: bearer <token>` and a User-Agent in Reddit's required form:
//   GET /search, GET /r/{sub}/search (restrict_sr=1)   t3 listings, newest first, `after` paging
//   GET /r/{sub}/comments                              the community's newest t1 comments
// Ids are the world's post keys in base 36, so they grow with creation time as Reddit's do. The budget
// is 1000 requests per 10-minute window (Reddit's 100 a minute, counted the way its headers report it):
// `X-Ratelimit-Reset` is the seconds left in that window.

const TOKEN_TTL_SECONDS = 86_400;
const USER_AGENT = /^[^\s:]+:[^\s:]+:[^\s:]+ \(by \/u\/[A-Za-z0-9_-]{3,20}\)$/;
const WINDOWS: Record<string, number> = { hour: 3600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000, year: 365 * 86_400_000 };
/** Generated comments get keys apart from the generated posts they answer. */
const COMMENT_KEY_BIT = 0x100000n;

const id36 = (key: bigint) => key.toString(36);
const keyOfFullname = (fullname: string): bigint | undefined => {
  const m = /^t[13]_([0-9a-z]{1,13})$/.exec(fullname);
  if (!m) return undefined;
  let key = 0n;
  for (const c of m[1]!) key = key * 36n + BigInt(Number.parseInt(c, 36));
  return key;
};
const slugOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 50) || "post";
const authorFullname = (p: SimPost) => `t2_${/^\d+$/.test(p.author.id) ? BigInt(p.author.id).toString(36) : p.author.id}`;

const linkData = (p: SimPost) => {
  const subreddit = p.subreddit ?? "technology";
  const permalink = `/r/${subreddit}/comments/${id36(p.key)}/${slugOf(p.title ?? p.text)}/`;
  return {
    id: id36(p.key),
    name: `t3_${id36(p.key)}`,
    title: p.title ?? p.text.slice(0, 300),
    selftext: p.title ? p.text : "",
    author: p.author.handle,
    author_fullname: authorFullname(p),
    subreddit,
    subreddit_name_prefixed: `r/${subreddit}`,
    permalink,
    url: `https://www.reddit.com${permalink}`,
    is_self: true,
    created_utc: p.createdAtMs / 1000,
    score: p.likes,
    num_comments: p.replies,
    over_18: false,
  };
};

const commentData = (p: SimPost) => {
  const subreddit = p.subreddit ?? "technology";
  const linkKey = p.parentKey ?? p.key ^ COMMENT_KEY_BIT;
  return {
    id: id36(p.key),
    name: `t1_${id36(p.key)}`,
    body: p.text,
    author: p.author.handle,
    author_fullname: authorFullname(p),
    subreddit,
    permalink: `/r/${subreddit}/comments/${id36(linkKey)}/comment/${id36(p.key)}/`,
    link_id: `t3_${id36(linkKey)}`,
    parent_id: `t3_${id36(linkKey)}`,
    created_utc: p.createdAtMs / 1000,
    score: p.likes,
  };
};

const listing = (children: unknown[], after: string | null) => ({ kind: "Listing", data: { after, before: null, dist: children.length, modhash: "", children } });

/** The community's comments: published ones, and (when generating) one for each searched term's generated post. */
const commentsOf = (world: SimWorld, subreddit: string): SimPost[] => {
  const published = world.posts("reddit", (p) => p.kind === "comment" && p.subreddit?.toLowerCase() === subreddit.toLowerCase());
  if (!world.generate) return published;
  const now = world.now();
  const generated = world
    .searchedTerms()
    .flatMap((term) => world.generatedFor("reddit", term, { subreddit, kind: "comment" }, now))
    .filter((p) => p.createdAtMs <= now)
    .map((p) => ({ ...p, key: p.key ^ COMMENT_KEY_BIT, title: undefined }));
  return [...new Map([...published, ...generated].map((p) => [p.key, p])).values()].sort((a, b) => (a.key > b.key ? -1 : a.key < b.key ? 1 : 0));
};

export const redditSimulator: PlatformSimulatorFactory = (world) => {
  const window = new RateWindow(world.rateLimits.reddit ?? 1000, 600_000);
  const tokens = new Map<string, number>();
  let issued = 0;
  let malformedTurn = 0;

  const issueToken = (res: ServerResponse, authorization: string | undefined, body: string) => {
    const creds = basicCredentials(authorization);
    if (creds?.user !== SIM_CREDENTIALS.redditClientId || creds.password !== SIM_CREDENTIALS.redditClientSecret) return sendJson(res, 401, { message: "Unauthorized", error: 401 });
    if (new URLSearchParams(body).get("grant_type") !== "client_credentials") return sendJson(res, 200, { error: "unsupported_grant_type" });
    issued += 1;
    const token = `sim-reddit-token-${issued}-${world.now().toString(36)}`;
    tokens.set(token, world.now() + TOKEN_TTL_SECONDS * 1000);
    return sendJson(res, 200, { access_token: token, token_type: "bearer", expires_in: TOKEN_TTL_SECONDS, scope: "*" });
  };

  const sendListing = (res: ServerResponse, headers: Record<string, string>, items: SimPost[], limit: number, toData: (p: SimPost) => Record<string, unknown>, kind: "t1" | "t3") => {
    const page = items.slice(0, limit);
    const after = items.length > page.length ? `${kind}_${id36(page[page.length - 1]!.key)}` : null;
    const children = page.map((p) => ({ kind, data: toData(p) }));
    if (world.takeMalformed("reddit")) {
      malformedTurn += 1;
      // Alternate the two ways providers break: a cut-off body, and items without their id.
      if (malformedTurn % 2 === 1) return sendText(res, 200, JSON.stringify(listing(children, after)).slice(0, 40), "application/json; charset=UTF-8", headers);
      const broken = children.map((c, i) => {
        if (i % 2 === 1) return c;
        const { id: _id, name: _name, ...rest } = c.data as { id: string; name: string };
        return { kind, data: rest };
      });
      return sendJson(res, 200, listing(broken, after), headers);
    }
    return sendJson(res, 200, listing(children, after), headers);
  };

  return {
    platform: "reddit",
    prefixes: { [SIM_PREFIXES.redditApi]: "redditApi", [SIM_PREFIXES.redditAuth]: "redditAuth" },
    handle: ({ req, res, url, path, body }, prefix) => {
      const agent = req.headers["user-agent"] ?? "";
      // Reddit turns away generic agents before anything else.
      if (!USER_AGENT.test(agent)) return sendJson(res, 403, { message: "Forbidden", error: 403 });
      if (prefix === SIM_PREFIXES.redditAuth) {
        if (req.method === "POST" && path === "/api/v1/access_token") return issueToken(res, req.headers.authorization, body);
        return sendJson(res, 404, { message: "Not Found", error: 404 });
      }
      const token = bearerToken(req.headers.authorization);
      const now = world.now();
      const expires = token === undefined ? undefined : tokens.get(token);
      if (expires === undefined || expires <= now) return sendJson(res, 401, { message: "Unauthorized", error: 401 }, { "www-authenticate": 'Bearer realm="reddit", error="invalid_token"' });
      const fault = world.takeFault("reddit", requestTarget(path, url));
      const state = window.take(now);
      const secondsLeft = Math.max(0, Math.ceil((state.resetAtMs - now) / 1000));
      if (fault?.status === 429)
        return sendJson(res, 429, { message: "Too Many Requests", error: 429 }, { "x-ratelimit-used": String(state.limit), "x-ratelimit-remaining": "0.0", "x-ratelimit-reset": String(fault.retryAfterSeconds) });
      const headers = { "x-ratelimit-used": String(state.used), "x-ratelimit-remaining": `${state.remaining}.0`, "x-ratelimit-reset": String(secondsLeft) };
      if (fault) return sendJson(res, fault.status, { message: fault.status === 503 ? "Service Unavailable" : "Internal Server Error", error: fault.status }, headers);
      if (state.used > state.limit) return sendJson(res, 429, { message: "Too Many Requests", error: 429 }, headers);
      if (req.method !== "GET") return sendJson(res, 405, { message: "Method Not Allowed", error: 405 }, headers);

      const q = url.searchParams;
      const limit = Math.min(100, Math.max(1, Number.parseInt(q.get("limit") ?? "25", 10) || 25));
      const afterKey = q.get("after") ? keyOfFullname(q.get("after")!) : undefined;
      const beforeKey = q.get("before") ? keyOfFullname(q.get("before")!) : undefined;
      const window_ = (items: SimPost[]) => items.filter((p) => (afterKey === undefined || p.key < afterKey) && (beforeKey === undefined || p.key > beforeKey));

      const comments = /^\/r\/([A-Za-z0-9_]{2,21})\/comments\/?$/.exec(path);
      if (comments) return sendListing(res, headers, window_(commentsOf(world, comments[1]!)), limit, commentData, "t1");

      const search = /^(?:\/r\/([A-Za-z0-9_]{2,21}))?\/search\/?$/.exec(path);
      if (!search) return sendJson(res, 404, { message: "Not Found", error: 404 }, headers);
      const type = q.get("type");
      // Search finds links only; other types (communities, users) have nothing simulated.
      if (type && !type.split(",").includes("link")) return sendJson(res, 200, listing([], null), headers);
      const query = q.get("q") ?? "";
      let parsed;
      try {
        parsed = parseQuery(query);
      } catch (err) {
        // Reddit answers a query it cannot parse with an empty listing, not an error.
        if (err instanceof QuerySyntaxError || !query.trim()) return sendJson(res, 200, listing([], null), headers);
        throw err;
      }
      const restrictTo = search[1] && q.get("restrict_sr") && q.get("restrict_sr") !== "0" && q.get("restrict_sr") !== "false" ? search[1] : undefined;
      const spec = searchSpecOf(parsed);
      const t = q.get("t") ?? "all";
      const found = world
        .search("reddit", { ...spec, ...(restrictTo ? { subreddit: restrictTo } : {}), kind: "post", ...(WINDOWS[t] ? { afterMs: now - WINDOWS[t]! } : {}) })
        .filter((p) => matchesQuery(parsed, p));
      return sendListing(res, headers, window_(found), limit, linkData, "t3");
    },
  };
};
