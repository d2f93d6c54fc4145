import { requestTarget, sendJson, sendText } from "./http";
import type { PlatformSimulatorFactory } from "./platform-simulator";
import { SIM_PREFIXES } from "./settings";
import type { SimPost } from "./world";

// Hacker News through the Algolia HN Search API (no key, as the real one): `GET /search_by_date` with
// `query` (words ANDed, matched as the world's phrase), `tags=(story,comment)`, `numericFilters=
// created_at_i>N`, `hitsPerPage`/`page`; hits newest first with `nbHits`, `nbPages`, `page`, `hitsPerPage`.
// objectIDs are the world's post keys, so they grow with creation time as HN item ids do. Published
// posts of kind "comment" are comments (HTML text, their story's title); every other post is a story.

const MAX_HITS_PER_PAGE = 1000;

/** A world post as an Algolia search hit (the shape the Hacker News collector reads). */
export const hnHitOf = (p: SimPost) => {
  const id = p.key.toString();
  const createdAtI = Math.floor(p.createdAtMs / 1000);
  const base = { objectID: id, created_at_i: createdAtI, created_at: new Date(p.createdAtMs).toISOString(), author: p.author.handle, points: p.likes, num_comments: p.replies };
  if (p.kind === "comment") {
    const storyId = p.parentKey ?? p.key ^ 1n;
    return { ...base, _tags: ["comment", `author_${p.author.handle}`, `story_${storyId}`], title: null, url: null, story_id: Number(storyId & 0x1fffffffffffffn), story_title: p.title ?? p.text.slice(0, 80), comment_text: `<p>${p.text.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</p>`, story_text: null };
  }
  return { ...base, _tags: ["story", `author_${p.author.handle}`, `story_${id}`], title: p.title ?? p.text.slice(0, 80), url: null, story_text: p.text, story_id: null, story_title: null, comment_text: null };
};

export const hackernewsSimulator: PlatformSimulatorFactory = (world) => ({
  platform: "hackernews",
  prefixes: { [SIM_PREFIXES.hackernewsApi]: "hackernewsApi" },
  handle: ({ req, res, url, path }) => {
    if (req.method !== "GET") return sendJson(res, 405, { message: "Method Not Allowed", status: 405 });
    if (path !== "/search_by_date" && path !== "/search") return sendJson(res, 404, { message: "Not Found", status: 404 });
    const fault = world.takeFault("hackernews", requestTarget(path, url));
    if (fault) return sendJson(res, fault.status, { message: fault.status === 429 ? "Too Many Requests" : "Internal error", status: fault.status }, fault.status === 429 ? { "retry-after": String(fault.retryAfterSeconds) } : {});
    const q = url.searchParams;
    const query = (q.get("query") ?? "").trim();
    const after = /created_at_i>(\d+)/.exec(q.get("numericFilters") ?? "")?.[1];
    const tags = (q.get("tags") ?? "").replace(/[()]/g, "").split(",").filter(Boolean);
    const per = Math.min(MAX_HITS_PER_PAGE, Math.max(1, Number.parseInt(q.get("hitsPerPage") ?? "20", 10) || 20));
    const page = Math.max(0, Number.parseInt(q.get("page") ?? "0", 10) || 0);
    const found = query
      ? world
          .search("hackernews", { anyOf: [query], ...(after ? { afterMs: Number(after) * 1000 + 999 } : {}) })
          .filter((p) => tags.length === 0 || tags.includes(p.kind === "comment" ? "comment" : "story"))
      : [];
    const body = { hits: found.slice(page * per, (page + 1) * per).map(hnHitOf), nbHits: found.length, nbPages: Math.ceil(found.length / per), page, hitsPerPage: per, query, params: q.toString() };
    if (world.takeMalformed("hackernews")) return sendText(res, 200, JSON.stringify(body).slice(0, 40), "application/json; charset=utf-8");
    return sendJson(res, 200, body);
  },
});
