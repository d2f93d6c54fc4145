import type { ServerResponse } from "node:http";
import { bearerToken, requestTarget, sendJson, sendText } from "./http";
import type { PlatformSimulatorFactory } from "./platform-simulator";
import { matchesQuery, parseQuery, QuerySyntaxError, searchSpecOf } from "./query-syntax";
import { RateWindow } from "./rate-window";
import { SIM_CREDENTIALS, SIM_PREFIXES } from "./settings";
import { SNOWFLAKE_EPOCH_MS, type SimPost } from "./world";

// X API v2 recent search (reference/protocols.md "X API v2"): `GET /2/tweets/search/recent` with the app
// bearer token; the last 7 days; ids are snowflakes (the world's post keys), so `since_id` and the order of
// results follow creation time. Every answer carries the app's 15-minute window (450 requests) in
// `x-rate-limit-*` headers; past it, 429 as X answers.

const SEARCH_PATH = "/2/tweets/search/recent";
const MAX_QUERY = 512;
const SEVEN_DAYS_MS = 7 * 24 * 3600_000;
const INVALID_REQUEST = "https://api.twitter.com/2/problems/invalid-request";

const invalid = (res: ServerResponse, headers: Record<string, string>, parameter: string, value: string, message: string) =>
  sendJson(
    res,
    400,
    { errors: [{ parameters: { [parameter]: [value] }, message }], title: "Invalid Request", detail: "One or more parameters to your request was invalid.", type: INVALID_REQUEST },
    headers,
  );

const problem = (res: ServerResponse, status: number, title: string, headers: Record<string, string> = {}) =>
  sendJson(res, status, { title, type: "about:blank", status, detail: title }, headers);

const encodeToken = (beforeKey: bigint): string => Buffer.from(JSON.stringify({ b: beforeKey.toString() })).toString("base64url");

const decodeToken = (token: string): bigint | undefined => {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { b?: unknown };
    return typeof parsed.b === "string" && /^\d+$/.test(parsed.b) ? BigInt(parsed.b) : undefined;
  } catch {
    return undefined;
  }
};

const msOfId = (id: bigint): number => Number(id >> 22n) + SNOWFLAKE_EPOCH_MS;

const tweetOf = (p: SimPost) => ({
  id: p.key.toString(),
  text: p.text,
  author_id: p.author.id,
  created_at: new Date(p.createdAtMs).toISOString(),
  lang: p.lang,
  public_metrics: { retweet_count: p.shares - Math.floor(p.shares / 4), reply_count: p.replies, like_count: p.likes, quote_count: Math.floor(p.shares / 4), impression_count: p.views },
});

export const xSimulator: PlatformSimulatorFactory = (world) => {
  const window = new RateWindow(world.rateLimits.x ?? 450, 15 * 60_000);
  let malformedTurn = 0;
  return {
    platform: "x",
    prefixes: { [SIM_PREFIXES.xApi]: "xApi" },
    handle: ({ res, url, path, req }) => {
      if (bearerToken(req.headers.authorization) !== SIM_CREDENTIALS.xBearerToken) return problem(res, 401, "Unauthorized");
      const now = world.now();
      const fault = world.takeFault("x", requestTarget(path, url));
      if (fault?.status === 429) {
        const reset = Math.ceil((now + fault.retryAfterSeconds * 1000) / 1000);
        return problem(res, 429, "Too Many Requests", { "x-rate-limit-limit": String(window.limit), "x-rate-limit-remaining": "0", "x-rate-limit-reset": String(reset) });
      }
      const state = window.take(now);
      const headers = { "x-rate-limit-limit": String(state.limit), "x-rate-limit-remaining": String(state.remaining), "x-rate-limit-reset": String(Math.ceil(state.resetAtMs / 1000)) };
      if (fault) return problem(res, fault.status, fault.status === 503 ? "Service Unavailable" : "Internal Server Error", headers);
      if (state.used > state.limit) return problem(res, 429, "Too Many Requests", headers);
      if (req.method !== "GET" || path !== SEARCH_PATH) return problem(res, 404, "Not Found Error", headers);

      const q = url.searchParams;
      const query = q.get("query") ?? "";
      if (!query.trim()) return invalid(res, headers, "query", query, "The `query` query parameter can not be empty");
      if (query.length > MAX_QUERY) return invalid(res, headers, "query", query, `The \`query\` query parameter value [${query.length}] is not between 1 and ${MAX_QUERY}`);
      let parsed;
      try {
        parsed = parseQuery(query);
      } catch (err) {
        if (err instanceof QuerySyntaxError) return invalid(res, headers, "query", query, `There were errors processing your request: ${err.message}`);
        throw err;
      }
      const maxResults = q.has("max_results") ? Number(q.get("max_results")) : 10;
      if (!Number.isInteger(maxResults) || maxResults < 10 || maxResults > 100)
        return invalid(res, headers, "max_results", q.get("max_results") ?? "", `The \`max_results\` query parameter value [${q.get("max_results")}] is not between 10 and 100`);
      const sinceRaw = q.get("since_id");
      if (sinceRaw !== null && !/^\d{1,19}$/.test(sinceRaw)) return invalid(res, headers, "since_id", sinceRaw, `The \`since_id\` query parameter value [${sinceRaw}] is not a valid id`);
      const sinceId = sinceRaw === null ? undefined : BigInt(sinceRaw);
      const startRaw = q.get("start_time");
      const startMs = startRaw === null ? undefined : Date.parse(startRaw);
      // X documents the form YYYY-MM-DDTHH:mm:ssZ: no fractions of a second, no offsets.
      if (startMs !== undefined && (Number.isNaN(startMs) || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(startRaw ?? "")))
        return invalid(res, headers, "start_time", startRaw ?? "", `Invalid 'start_time':'${startRaw}'. 'start_time' must be a date-time of the form YYYY-MM-DDTHH:mm:ssZ`);
      const oldest = now - SEVEN_DAYS_MS;
      if (sinceId !== undefined && msOfId(sinceId) < oldest) return invalid(res, headers, "since_id", sinceRaw ?? "", `Invalid 'since_id':'${sinceRaw}'. 'since_id' must be a tweet id created after ${new Date(oldest).toISOString()}`);
      if (startMs !== undefined && startMs < oldest) return invalid(res, headers, "start_time", startRaw ?? "", `Invalid 'start_time':'${startRaw}'. 'start_time' must be on or after ${new Date(oldest).toISOString()}`);
      const tokenRaw = q.get("next_token") ?? q.get("pagination_token");
      const beforeKey = tokenRaw === null ? undefined : decodeToken(tokenRaw);
      if (tokenRaw !== null && beforeKey === undefined) return invalid(res, headers, "next_token", tokenRaw, "The `next_token` query parameter value is not valid");

      // Recent search reaches 7 days back; since_id and start_time only narrow that.
      const floors = [now - SEVEN_DAYS_MS, ...(sinceId !== undefined ? [msOfId(sinceId) - 1] : []), ...(startMs !== undefined ? [startMs - 1] : [])];
      const found = world
        .search("x", { ...searchSpecOf(parsed), afterMs: Math.max(...floors) })
        .filter((p) => matchesQuery(parsed, p) && (sinceId === undefined || p.key > sinceId) && (startMs === undefined || p.createdAtMs >= startMs));
      const from = beforeKey === undefined ? found : found.filter((p) => p.key < beforeKey);
      const page = from.slice(0, maxResults);
      const more = from.length > page.length;

      if (world.takeMalformed("x")) {
        malformedTurn += 1;
        // Alternate the two ways providers break: a cut-off body, and items without their id.
        if (malformedTurn % 2 === 1) return sendText(res, 200, JSON.stringify({ data: page.map(tweetOf) }).slice(0, 40), "application/json; charset=utf-8", headers);
        const data = page.map((p, i) => {
          const { id: _id, ...rest } = tweetOf(p);
          return i % 2 === 0 ? rest : tweetOf(p);
        });
        return sendJson(res, 200, { data, includes: { users: usersOf(page) }, meta: { newest_id: page[0]?.key.toString(), oldest_id: page[page.length - 1]?.key.toString(), result_count: data.length } }, headers);
      }
      if (page.length === 0) return sendJson(res, 200, { meta: { result_count: 0 } }, headers);
      return sendJson(
        res,
        200,
        {
          data: page.map(tweetOf),
          includes: { users: usersOf(page) },
          meta: { newest_id: page[0]!.key.toString(), oldest_id: page[page.length - 1]!.key.toString(), result_count: page.length, ...(more ? { next_token: encodeToken(page[page.length - 1]!.key) } : {}) },
        },
        headers,
      );
    },
  };
};

const usersOf = (posts: SimPost[]) => {
  const users = new Map<string, { id: string; name: string; username: string }>();
  for (const p of posts) users.set(p.author.id, { id: p.author.id, name: p.author.name, username: p.author.handle });
  return [...users.values()];
};
