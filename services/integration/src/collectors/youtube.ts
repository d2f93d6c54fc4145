import type { CollectedPost, Collector, PollInput, PollOutcome } from "./collector";
import type { CollectorDeps } from "./collector-deps";
import { isItemRefusal, ProviderRateLimited, ProviderRejected, QuotaExhausted } from "./provider-errors";
import { resetOf } from "./provider-http";
import { laterOf, MAX_SEEN, readYoutubeCursor, type YoutubeCursor, type YoutubeQueryState, type YoutubeWatched } from "./youtube-cursor";
import { mapYoutubeComment, mapYoutubeVideo, unescapeHtml, youtubeListSchema, youtubeSearchItemSchema, type YoutubeSearchItem, youtubeThreadSchema, youtubeVideoStatsSchema } from "./youtube-map";
import { buildYoutubeQueries, type YoutubeSearchQuery } from "./youtube-query";
import { nextPacificMidnight } from "./youtube-quota-reset";

// YouTube (Data API v3): one search.list per query for the videos published since the last poll, then
// videos.list for their statistics and commentThreads.list for the comments of the newest videos found.
// Quota is the constraint (search 100 units, the others 1, 10,000 a day by default): every call takes its
// units from the shared ledger first, and a refusal ends the poll (QuotaExhausted when nothing was found
// yet, else the posts so far with backoffUntil) so the poller waits for the day's reset.

export interface YoutubeCollectorOptions {
  /** search.list pages read per query and poll; the rest is read by the next polls (default 3). */
  maxSearchPages?: number;
  /** Videos whose comments are read each poll, the newest found (default 5). */
  commentVideos?: number;
  /** commentThreads pages (100 each) read per video and poll; the rest is read by the next polls (default 3). */
  commentPages?: number;
  /** How far back the first poll of a query looks (default EARSHOT_FIRST_SEARCH_LOOKBACK_HOURS). */
  firstPollLookbackMs?: number;
}

const COSTS = { search: 100, list: 1 } as const;

const isQuotaExceeded = (err: unknown): boolean => err instanceof ProviderRejected && err.status === 403 && /"reason"\s*:\s*"(quotaExceeded|dailyLimitExceeded)"/.test(err.body);

/** Google's per-second and per-user limits come as 403s naming the limit, not as 429s. */
const isRateLimited = (err: unknown): err is ProviderRejected => err instanceof ProviderRejected && err.status === 403 && /"reason"\s*:\s*"(rateLimitExceeded|userRateLimitExceeded)"/.test(err.body);

/** When Google names no time to come back after a rate limit. */
const RATE_LIMIT_WAIT_MS = 60_000;

/** Ends the poll: the day's budget is spent until `resetAt`. */
class OutOfQuota {
  constructor(readonly resetAt: Date) {}
}

export const createYoutubeCollector = (deps: CollectorDeps, options: YoutubeCollectorOptions = {}): Collector => {
  const { settings, http, quota, logger } = deps;
  const maxPages = options.maxSearchPages ?? 3;
  const commentVideos = options.commentVideos ?? 5;
  const commentPages = options.commentPages ?? 3;
  const lookbackMs = options.firstPollLookbackMs ?? settings.EARSHOT_FIRST_SEARCH_LOOKBACK_HOURS * 3_600_000;

  const sampleGrant = async (units: number, now: Date) => {
    const left = await quota.left("youtube", now);
    return { ...left, granted: left.left >= units };
  };

  const call = async (path: string, params: Record<string, string>, units: number, input: PollInput, state: { quotaLeft?: number }) => {
    // A sample spends Google's units but takes none from the ledger (a preview must not hold up the
    // pollers); it still refuses to run on a budget the pollers have used up.
    const granted = input.sample ? await sampleGrant(units, input.now) : await quota.take("youtube", units, input.now);
    state.quotaLeft = granted.left;
    if (!granted.granted) throw new OutOfQuota(granted.resetAt);
    const url = `${settings.EARSHOT_YOUTUBE_API_URL}${path}?${new URLSearchParams({ ...params, key: settings.EARSHOT_YOUTUBE_API_KEY ?? "" })}`;
    try {
      return (await http.request({ source: "youtube", url, signal: input.signal })).json;
    } catch (err) {
      // Google's own count said no (another user of the key, or a budget set higher than the key's):
      // its quota resets at midnight Pacific time, so that is when to come back.
      if (isQuotaExceeded(err)) throw new OutOfQuota(nextPacificMidnight(input.now));
      if (isRateLimited(err)) {
        const now = deps.now().getTime();
        throw new ProviderRateLimited("youtube", (err.headers && resetOf(err.headers, now)) ?? new Date(now + RATE_LIMIT_WAIT_MS), err.status);
      }
      throw err;
    }
  };

  const poll = async (input: PollInput): Promise<PollOutcome> => {
    const cursor = readYoutubeCursor(input.cursor);
    const seen = new Set(cursor.seen);
    const state: { quotaLeft?: number } = {};
    const found: { item: YoutubeSearchItem; term: string }[] = [];
    const posts: CollectedPost[] = [];
    const queries: YoutubeCursor["queries"] = {};
    let skipped = 0;
    let stop: OutOfQuota | undefined;
    const defaultAfter = new Date(input.now.getTime() - (input.lookbackMs ?? lookbackMs)).toISOString();

    const skip = (what: string, detail: unknown) => {
      skipped += 1;
      logger.warn({ source: "youtube", projectId: input.projectId, detail }, `youtube: skipped a malformed ${what}`);
    };

    const searchQuery = async (query: YoutubeSearchQuery, from: YoutubeQueryState): Promise<YoutubeQueryState> => {
      let pageToken = from.pageToken;
      let newest = from.newest ?? from.after;
      for (let page = 0; page < (input.sample ? 1 : maxPages); page++) {
        const json = await call(
          "/search",
          {
            part: "snippet",
            q: query.q,
            type: "video",
            order: "date",
            publishedAfter: new Date(from.after).toISOString().replace(/\.\d{3}Z$/, "Z"),
            maxResults: "50",
            ...(query.channelId ? { channelId: query.channelId } : {}),
            ...(pageToken ? { pageToken } : {}),
          },
          COSTS.search,
          input,
          state,
        );
        const list = youtubeListSchema.safeParse(json);
        if (!list.success) {
          skip("search answer", list.error.issues[0]);
          return { after: from.after, newest };
        }
        for (const raw of list.data.items) {
          const item = youtubeSearchItemSchema.safeParse(raw);
          if (!item.success) {
            skip("search item", item.error.issues[0]);
            continue;
          }
          newest = laterOf(newest, item.data.snippet.publishedAt);
          if (seen.has(item.data.id.videoId)) continue;
          seen.add(item.data.id.videoId);
          const hay = unescapeHtml(`${item.data.snippet.title} ${item.data.snippet.description}`).toLowerCase();
          found.push({ item: item.data, term: query.phrases.find((p) => hay.includes(p.toLowerCase())) ?? query.phrases[0] ?? "" });
        }
        pageToken = list.data.nextPageToken;
        // The last page read: the next search starts from the newest video seen.
        if (!pageToken) return { after: newest };
      }
      return { after: from.after, newest, ...(pageToken ? { pageToken } : {}) };
    };

    for (const query of buildYoutubeQueries(input.keywords)) {
      const from = cursor.queries[query.id] ?? { after: defaultAfter };
      queries[query.id] = from;
      if (stop) continue;
      try {
        queries[query.id] = await searchQuery(query, from);
      } catch (err) {
        if (!(err instanceof OutOfQuota)) throw err;
        stop = err;
      }
    }

    // Statistics, 50 videos a call; a video is still worth emitting without them.
    const stats = new Map<string, { views?: number; likes?: number; comments?: number }>();
    for (let i = 0; i < found.length && !stop; i += 50) {
      const ids = found.slice(i, i + 50).map((f) => f.item.id.videoId);
      try {
        const list = youtubeListSchema.safeParse(await call("/videos", { part: "statistics", id: ids.join(",") }, COSTS.list, input, state));
        for (const raw of list.success ? list.data.items : []) {
          const v = youtubeVideoStatsSchema.safeParse(raw);
          if (!v.success) skip("video statistics", v.error.issues[0]);
          else stats.set(v.data.id, { views: v.data.statistics.viewCount, likes: v.data.statistics.likeCount, comments: v.data.statistics.commentCount });
        }
      } catch (err) {
        if (!(err instanceof OutOfQuota)) throw err;
        stop = err;
      }
    }
    for (const f of found) posts.push(mapYoutubeVideo(f.item, stats.get(f.item.id.videoId)));

    // Comments of the newest videos found (these and earlier polls'), newer than the last one read. They
    // come newest first, so `commentsAfter` moves only once a pass reaches it (or the last page): a pass
    // longer than `commentPages` goes on from its page token next poll, and nothing between is lost.
    const fresh: YoutubeWatched[] = found.map((f) => ({ videoId: f.item.id.videoId, publishedAt: f.item.snippet.publishedAt, term: f.term }));
    const watch = [...fresh, ...cursor.watch.filter((w) => !fresh.some((f) => f.videoId === w.videoId))]
      .sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt))
      .slice(0, input.sample ? 0 : commentVideos);
    const kept: YoutubeWatched[] = [];
    for (const w of watch) {
      if (stop) {
        kept.push(w);
        continue;
      }
      let pageToken = w.commentsPageToken;
      let passNewest = w.commentsNewest;
      let complete = false;
      try {
        for (let page = 0; page < commentPages && !complete; page++) {
          const json = await call(
            "/commentThreads",
            { part: "snippet", videoId: w.videoId, searchTerms: w.term, order: "time", maxResults: "100", textFormat: "plainText", ...(pageToken ? { pageToken } : {}) },
            COSTS.list,
            input,
            state,
          );
          const list = youtubeListSchema.safeParse(json);
          if (!list.success) skip("comment list", list.error.issues[0]);
          for (const raw of list.success ? list.data.items : []) {
            const thread = youtubeThreadSchema.safeParse(raw);
            if (!thread.success) {
              skip("comment thread", thread.error.issues[0]);
              continue;
            }
            const c = thread.data.snippet.topLevelComment;
            if (w.commentsAfter && Date.parse(c.snippet.publishedAt) < Date.parse(w.commentsAfter)) {
              complete = true;
              continue;
            }
            passNewest = laterOf(passNewest, c.snippet.publishedAt);
            if (seen.has(c.id)) continue;
            seen.add(c.id);
            posts.push(mapYoutubeComment(thread.data));
          }
          pageToken = list.success ? list.data.nextPageToken : undefined;
          if (!pageToken) complete = true;
        }
      } catch (err) {
        if (err instanceof OutOfQuota) stop = err;
        else if (isItemRefusal(err)) {
          // A video gone, private or with comments turned off: its comments are not the source's failure.
          skipped += 1;
          logger.warn({ source: "youtube", projectId: input.projectId, videoId: w.videoId, status: err.status, detail: err.message }, "youtube: skipped a video whose comments were refused");
          continue;
        } else throw err;
      }
      const { commentsPageToken: _t, commentsNewest: _n, ...base } = w;
      if (complete) {
        const commentsAfter = passNewest ?? w.commentsAfter;
        kept.push({ ...base, ...(commentsAfter ? { commentsAfter } : {}) });
      } else kept.push({ ...base, ...(pageToken ? { commentsPageToken: pageToken } : {}), ...(passNewest ? { commentsNewest: passNewest } : {}) });
    }

    if (stop && !posts.length) throw new QuotaExhausted("youtube", stop.resetAt);
    const emitted = new Set(posts.map((p) => p.sourceId));
    const recent = [...cursor.seen.filter((id) => !emitted.has(id)), ...emitted].slice(-MAX_SEEN);
    return {
      posts,
      cursor: { v: 1, queries, watch: kept, seen: recent } satisfies YoutubeCursor,
      skipped,
      ...(state.quotaLeft !== undefined ? { quotaLeft: state.quotaLeft } : {}),
      ...(stop ? { backoffUntil: stop.resetAt } : {}),
    };
  };

  return {
    source: "youtube",
    configured: Boolean(settings.EARSHOT_YOUTUBE_API_KEY),
    searchesKeywords: true,
    poll,
  };
};
