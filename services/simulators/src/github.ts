import { bearerToken, requestTarget, sendJson, sendText } from "./http";
import type { PlatformSimulatorFactory } from "./platform-simulator";
import { RateWindow } from "./rate-window";
import { SIM_PREFIXES } from "./settings";
import type { SimPost } from "./world";

// GitHub's REST search for issues and pull requests: `GET /search/issues` with `q` (quoted phrases, bare
// words, `is:issue` / `is:pr`, `created:>ISO`), sort=created order=desc, `per_page` (max 100) / `page`;
// `total_count`, `incomplete_results`, `items`. The search rate limit is GitHub's: 10 requests a minute
// without a token, 30 with one, with X-RateLimit-Limit/Remaining/Reset (epoch seconds) on every answer
// and 403 with remaining 0 once spent. Whether a post is a pull request follows from its key, so a
// term's generated posts are split between issues and pull requests.

const ORG = "simulated-org";
const REPO = "sim-project";

/** Mixes the millisecond (varies between a term's generated posts) and the salt (varies between published ones). */
const isPullRequest = (p: SimPost): boolean => ((p.key ^ (p.key >> 22n)) & 1n) === 1n;
/** GitHub ids are JSON numbers: the key's low 53 bits keep them exact and unique within a world. */
const idOf = (p: SimPost): number => Number(p.key & 0x1fffffffffffffn);

/** A world post as a search/issues item (the shape the GitHub collector reads). */
export const githubItemOf = (p: SimPost) => {
  const pr = isPullRequest(p);
  const number = (idOf(p) % 99_999) + 1;
  const kind = pr ? "pull" : "issues";
  return {
    id: idOf(p),
    number,
    title: p.title ?? p.text.slice(0, 80),
    body: p.text,
    html_url: `https://github.com/${ORG}/${REPO}/${kind}/${number}`,
    repository_url: `https://api.github.com/repos/${ORG}/${REPO}`,
    state: "open",
    comments: p.replies,
    user: { login: p.author.handle, id: Number(p.author.id) || 1, html_url: `https://github.com/${p.author.handle}` },
    created_at: new Date(p.createdAtMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
    updated_at: new Date(p.createdAtMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
    ...(pr ? { pull_request: { url: `https://api.github.com/repos/${ORG}/${REPO}/pulls/${number}`, html_url: `https://github.com/${ORG}/${REPO}/pull/${number}` } } : {}),
  };
};

/** `q`'s parts: phrases (quoted or bare words), the kind, and the creation bound. */
const parseQ = (q: string) => {
  const phrases = [...q.matchAll(/"([^"]*)"/g)].map((m) => m[1]!.trim()).filter(Boolean);
  const rest = q.replace(/"[^"]*"/g, " ").split(/\s+/).filter(Boolean);
  const words = rest.filter((w) => !w.includes(":"));
  const after = rest.map((w) => /^created:>(\S+)$/.exec(w)?.[1]).find(Boolean);
  const kind = rest.includes("is:pr") || rest.includes("type:pr") ? "pr" : rest.includes("is:issue") || rest.includes("type:issue") ? "issue" : undefined;
  return { terms: [...phrases, ...(words.length ? [words.join(" ")] : [])], kind, afterMs: after ? Date.parse(after) : undefined };
};

export const githubSimulator: PlatformSimulatorFactory = (world) => {
  const anonymous = new RateWindow(world.rateLimits.github ?? 10, 60_000);
  const authenticated = new RateWindow((world.rateLimits.github ?? 10) * 3, 60_000);
  return {
    platform: "github",
    prefixes: { [SIM_PREFIXES.githubApi]: "githubApi" },
    handle: ({ req, res, url, path }) => {
      if (path !== "/search/issues") return sendJson(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
      const now = world.now();
      const window = bearerToken(req.headers.authorization) ? authenticated : anonymous;
      const state = window.take(now);
      const headers = {
        "x-ratelimit-limit": String(state.limit),
        "x-ratelimit-remaining": String(Math.max(0, state.remaining)),
        "x-ratelimit-reset": String(Math.ceil(state.resetAtMs / 1000)),
        "x-ratelimit-used": String(Math.min(state.used, state.limit)),
        "x-ratelimit-resource": "search",
      };
      const fault = world.takeFault("github", requestTarget(path, url));
      if (fault?.status === 429 || fault?.status === 403)
        return sendJson(res, fault.status, { message: "API rate limit exceeded" }, { ...headers, "x-ratelimit-remaining": "0", "retry-after": String(fault.retryAfterSeconds) });
      if (fault) return sendJson(res, fault.status, { message: "Server Error" }, headers);
      if (state.used > state.limit) return sendJson(res, 403, { message: "API rate limit exceeded", documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api" }, headers);
      if (req.method !== "GET") return sendJson(res, 405, { message: "Method Not Allowed" }, headers);
      const q = url.searchParams.get("q") ?? "";
      const parsed = parseQ(q);
      if (parsed.terms.length === 0) return sendJson(res, 422, { message: "Validation Failed", errors: [{ resource: "Search", field: "q", code: "missing" }] }, headers);
      const per = Math.min(100, Math.max(1, Number.parseInt(url.searchParams.get("per_page") ?? "30", 10) || 30));
      const page = Math.max(1, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1);
      const found = world
        .search("github", { anyOf: parsed.terms, ...(parsed.afterMs !== undefined && !Number.isNaN(parsed.afterMs) ? { afterMs: parsed.afterMs } : {}) })
        .filter((p) => parsed.kind === undefined || isPullRequest(p) === (parsed.kind === "pr"));
      const body = { total_count: found.length, incomplete_results: false, items: found.slice((page - 1) * per, page * per).map(githubItemOf) };
      if (world.takeMalformed("github")) return sendText(res, 200, JSON.stringify(body).slice(0, 40), "application/json; charset=utf-8", headers);
      return sendJson(res, 200, body, headers);
    },
  };
};
