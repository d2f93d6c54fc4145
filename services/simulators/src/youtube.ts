import type { ServerResponse } from "node:http";
import { escapeHtml, requestTarget, sendJson } from "./http";
import type { PlatformSimulator, PlatformSimulatorFactory, SimRequest } from "./platform-simulator";
import { SIM_CREDENTIALS, SIM_PREFIXES } from "./settings";
import { channelOf, YoutubeCatalog, type YoutubeVideo } from "./youtube-catalog";
import { youtubeChannelIdOf, youtubeCommentId, youtubeVideoId } from "./youtube-ids";
import { parseYoutubeQuery } from "./youtube-query";
import { YOUTUBE_COSTS, YoutubeQuota } from "./youtube-quota";
import { normalizeTerm, type SimPost, type SimWorld } from "./world";

// YouTube Data API v3 (reference/protocols.md): search.list, videos.list and commentThreads.list under
// the API's base URL, an API key in `key`, Google's error bodies, and Google's quota metering (a call over
// the day's budget answers 403 quotaExceeded). Snippet text is HTML-escaped, as Google sends it.

export interface YoutubeSimulatorOptions {
  /** Quota units a day the simulated key may spend (default 10,000, Google's default). */
  dailyQuota?: number;
}

const googleError = (res: ServerResponse, code: number, reason: string, domain: string, message: string, headers: Record<string, string> = {}) =>
  sendJson(res, code, { error: { code, message, errors: [{ message, domain, reason }], status: code === 400 ? "INVALID_ARGUMENT" : code === 403 ? "PERMISSION_DENIED" : code === 404 ? "NOT_FOUND" : code === 429 ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE" } }, headers);

const invalid = (res: ServerResponse, message: string, reason = "invalidParameter") => googleError(res, 400, reason, "youtube.parameter", message);

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

const etag = (seed: string) => Buffer.from(seed).toString("base64url").slice(0, 27);

const pageTokenOf = (key: bigint) => Buffer.from(`after:${key}`).toString("base64url");

/** The key a page token continues after, undefined for none, null for a token that is not ours. */
const afterKeyOf = (token: string | null): bigint | undefined | null => {
  if (!token) return undefined;
  const m = /^after:(\d+)$/.exec(Buffer.from(token, "base64url").toString("utf8"));
  return m?.[1] ? BigInt(m[1]) : null;
};

const intParam = (value: string | null, fallback: number, max: number): number | undefined => {
  if (value === null || value === "") return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n <= max ? n : undefined;
};

/** Newest-first items after the page token's key, one page, with the token of the next. */
const page = <T extends { key: bigint }>(items: T[], after: bigint | undefined, size: number): { items: T[]; next?: string } => {
  const rest = after === undefined ? items : items.filter((p) => p.key < after);
  const slice = rest.slice(0, size);
  const last = slice[slice.length - 1];
  return { items: slice, ...(rest.length > size && last ? { next: pageTokenOf(last.key) } : {}) };
};

const searchItem = (post: SimPost) => {
  const { channelId, channelTitle } = channelOf(post);
  const videoId = youtubeVideoId(post.key);
  const thumbnail = (w: number, h: number, name: string) => ({ url: `https://i.ytimg.com/vi/${videoId}/${name}.jpg`, width: w, height: h });
  return {
    kind: "youtube#searchResult",
    etag: etag(`s${post.key}`),
    id: { kind: "youtube#video", videoId },
    snippet: {
      publishedAt: iso(post.createdAtMs),
      channelId,
      title: escapeHtml(post.title ?? post.text.slice(0, 100)),
      description: escapeHtml(post.text),
      thumbnails: { default: thumbnail(120, 90, "default"), medium: thumbnail(320, 180, "mqdefault"), high: thumbnail(480, 360, "hqdefault") },
      channelTitle: escapeHtml(channelTitle),
      liveBroadcastContent: "none",
      publishTime: iso(post.createdAtMs),
    },
  };
};

const threadItem = (video: SimPost, comment: SimPost) => {
  const id = youtubeCommentId(comment.key);
  const videoId = youtubeVideoId(video.key);
  const authorChannelId = youtubeChannelIdOf(comment.author.id);
  return {
    kind: "youtube#commentThread",
    etag: etag(`t${comment.key}`),
    id,
    snippet: {
      channelId: channelOf(video).channelId,
      videoId,
      topLevelComment: {
        kind: "youtube#comment",
        etag: etag(`c${comment.key}`),
        id,
        snippet: {
          channelId: channelOf(video).channelId,
          videoId,
          textDisplay: escapeHtml(comment.text),
          textOriginal: comment.text,
          authorDisplayName: `@${comment.author.handle}`,
          authorProfileImageUrl: `https://yt3.ggpht.com/sim/${authorChannelId}`,
          authorChannelUrl: `http://www.youtube.com/@${comment.author.handle}`,
          authorChannelId: { value: authorChannelId },
          canRate: true,
          viewerRating: "none",
          likeCount: comment.likes,
          publishedAt: iso(comment.createdAtMs),
          updatedAt: iso(comment.createdAtMs),
        },
      },
      canReply: true,
      totalReplyCount: comment.replies,
      isPublic: true,
    },
  };
};

/** An item that does not follow the API's shape, for collectors' handling of malformed answers. */
const MALFORMED_SEARCH_ITEM = { kind: "youtube#searchResult", etag: "malformed", id: { kind: "youtube#video" }, snippet: { publishedAt: "yesterday", title: 42 } };
const MALFORMED_THREAD_ITEM = { kind: "youtube#commentThread", etag: "malformed", id: 7, snippet: { topLevelComment: null } };

export const youtubeSimulatorWith =
  (options: YoutubeSimulatorOptions = {}): PlatformSimulatorFactory =>
  (world: SimWorld): PlatformSimulator => {
    const catalog = new YoutubeCatalog(world);
    const quota = new YoutubeQuota(options.dailyQuota ?? 10_000);

    const search = ({ res, url }: SimRequest) => {
      const q = url.searchParams;
      if (!(q.get("part") ?? "").split(",").includes("snippet")) return invalid(res, "part must include snippet", "invalidPart");
      const type = q.get("type");
      if (type && type !== "video") return invalid(res, "this simulator searches videos only (type=video)");
      const maxResults = intParam(q.get("maxResults"), 5, 50);
      if (maxResults === undefined) return invalid(res, "maxResults must be an integer from 0 to 50");
      const after = afterKeyOf(q.get("pageToken"));
      if (after === null) return invalid(res, "The request specifies an invalid page token.", "invalidPageToken");
      const publishedAfter = q.get("publishedAfter");
      const afterMs = publishedAfter ? Date.parse(publishedAfter) : undefined;
      if (afterMs !== undefined && (Number.isNaN(afterMs) || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(publishedAfter ?? "")))
        return invalid(res, "publishedAfter must be an RFC 3339 date-time such as 1970-01-01T00:00:00Z", "invalidPublishedAfter");
      const channelId = q.get("channelId") ?? undefined;
      const { anyOf, noneOf } = parseYoutubeQuery(q.get("q") ?? "");
      if (!anyOf.length && !channelId) return sendJson(res, 200, { kind: "youtube#searchListResponse", etag: etag("empty"), regionCode: "US", pageInfo: { totalResults: 0, resultsPerPage: maxResults }, items: [] });
      // Google's publishedAfter is "at or after": one millisecond earlier in the world's strict terms.
      const found = world.search("youtube", { anyOf, noneOf, kind: "post", ...(channelId ? { channelId } : {}), ...(afterMs !== undefined ? { afterMs: afterMs - 1 } : {}) });
      for (const post of found) catalog.remember(post, anyOf);
      const { items, next } = page(found, after, maxResults);
      const out: unknown[] = items.map(searchItem);
      if (world.takeMalformed("youtube")) out.splice(Math.min(1, out.length), 0, MALFORMED_SEARCH_ITEM);
      return sendJson(res, 200, {
        kind: "youtube#searchListResponse",
        etag: etag(`${q.get("q")}:${after ?? ""}`),
        ...(next ? { nextPageToken: next } : {}),
        regionCode: "US",
        pageInfo: { totalResults: Math.min(found.length, 1_000_000), resultsPerPage: maxResults },
        items: out,
      });
    };

    const videos = ({ res, url }: SimRequest) => {
      const q = url.searchParams;
      const parts = (q.get("part") ?? "").split(",").filter(Boolean);
      if (!parts.length || parts.some((p) => !["statistics", "snippet", "id"].includes(p))) return invalid(res, "part must name statistics, snippet or id", "invalidPart");
      const ids = (q.get("id") ?? "").split(",").filter(Boolean);
      if (!ids.length) return invalid(res, "No filter selected. Expected one of: id, chart, myRating", "missingRequiredParameter");
      if (ids.length > 50) return invalid(res, "id names more than 50 videos");
      const malformed = world.takeMalformed("youtube");
      const items = ids.flatMap((id) => {
        const video = catalog.video(id);
        if (!video) return [];
        const p = video.post;
        return [
          {
            kind: "youtube#video",
            etag: etag(`v${p.key}`),
            id,
            ...(parts.includes("snippet") ? { snippet: searchItem(p).snippet } : {}),
            ...(parts.includes("statistics")
              ? { statistics: malformed ? { viewCount: "many" } : { viewCount: String(p.views), likeCount: String(p.likes), favoriteCount: "0", commentCount: String(catalog.comments(video).length + p.replies) } }
              : {}),
          },
        ];
      });
      return sendJson(res, 200, { kind: "youtube#videoListResponse", etag: etag(ids.join(",")), items, pageInfo: { totalResults: items.length, resultsPerPage: items.length } });
    };

    const commentThreads = ({ res, url }: SimRequest) => {
      const q = url.searchParams;
      if (!(q.get("part") ?? "").split(",").includes("snippet")) return invalid(res, "part must include snippet", "invalidPart");
      const maxResults = intParam(q.get("maxResults"), 20, 100);
      if (maxResults === undefined || maxResults < 1) return invalid(res, "maxResults must be an integer from 1 to 100");
      const after = afterKeyOf(q.get("pageToken"));
      if (after === null) return invalid(res, "The request specifies an invalid page token.", "invalidPageToken");
      const videoId = q.get("videoId");
      const channelId = q.get("allThreadsRelatedToChannelId");
      if (!videoId === !channelId) return invalid(res, "Exactly one of videoId and allThreadsRelatedToChannelId is required", "missingRequiredParameter");
      let videosOf: YoutubeVideo[];
      if (videoId) {
        const video = catalog.video(videoId, q.get("searchTerms") ?? undefined);
        if (!video) return googleError(res, 404, "videoNotFound", "youtube.commentThread", "The video identified by the videoId parameter could not be found.");
        videosOf = [video];
      } else videosOf = catalog.videosOfChannel(channelId ?? "");
      const terms = normalizeTerm(q.get("searchTerms") ?? "");
      const threads = videosOf
        .flatMap((v) => catalog.comments(v).map((comment) => ({ key: comment.key, video: v.post, comment })))
        .filter((t) => !terms || normalizeTerm(t.comment.text).includes(terms))
        .sort((a, b) => (a.key > b.key ? -1 : a.key < b.key ? 1 : 0));
      const { items, next } = page(threads, after, maxResults);
      const out: unknown[] = items.map((t) => threadItem(t.video, t.comment));
      if (world.takeMalformed("youtube")) out.unshift(MALFORMED_THREAD_ITEM);
      return sendJson(res, 200, {
        kind: "youtube#commentThreadListResponse",
        etag: etag(`${videoId ?? channelId}:${after ?? ""}`),
        ...(next ? { nextPageToken: next } : {}),
        pageInfo: { totalResults: threads.length, resultsPerPage: maxResults },
        items: out,
      });
    };

    const routes = { "/search": [search, YOUTUBE_COSTS.search], "/videos": [videos, YOUTUBE_COSTS.videos], "/commentThreads": [commentThreads, YOUTUBE_COSTS.commentThreads] } as const;

    return {
      platform: "youtube",
      prefixes: { [SIM_PREFIXES.youtubeApi]: "https://www.googleapis.com/youtube/v3" },
      handle: (request) => {
        const { req, res, url, path } = request;
        const route = (routes as Record<string, readonly [(r: SimRequest) => void, number]>)[path];
        if (!route) return googleError(res, 404, "notFound", "global", "Not Found");
        if (req.method !== "GET") return googleError(res, 405, "httpMethodNotAllowed", "global", "Method Not Allowed");
        const fault = world.takeFault("youtube", requestTarget(path, url));
        if (fault) {
          const retryAfter: Record<string, string> = fault.retryAfterSeconds > 0 ? { "retry-after": String(fault.retryAfterSeconds) } : {};
          if (fault.status === 429) return googleError(res, 429, "rateLimitExceeded", "youtube.quota", "The request cannot be completed because you have exceeded your rate limit.", retryAfter);
          // Google answers its per-user and per-second limits as 403s that name the limit in `reason`.
          if (fault.status === 403 && (fault.reason === "rateLimitExceeded" || fault.reason === "userRateLimitExceeded"))
            return googleError(res, 403, fault.reason, "usageLimits", "The request cannot be completed because you have exceeded your rate limit.", retryAfter);
          if (fault.status === 403 && fault.reason) return googleError(res, 403, fault.reason, "youtube.commentThread", "The request is not properly authorized to access this resource.");
          if (fault.status === 403) return googleError(res, 403, "quotaExceeded", "youtube.quota", "The request cannot be completed because you have exceeded your quota.");
          return googleError(res, fault.status, fault.status >= 500 ? "backendError" : "badRequest", "global", fault.status >= 500 ? "Backend Error" : "Bad Request");
        }
        if (url.searchParams.get("key") !== SIM_CREDENTIALS.youtubeApiKey) return googleError(res, 400, "keyInvalid", "usageLimits", "API key not valid. Please pass a valid API key.");
        if (!quota.take(route[1], world.now())) return googleError(res, 403, "quotaExceeded", "youtube.quota", 'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.');
        return route[0](request);
      },
    };
  };

export const youtubeSimulator: PlatformSimulatorFactory = youtubeSimulatorWith();
