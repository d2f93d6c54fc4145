import type { CollectedPost, CollectKeyword, Collector, PollInput, PollOutcome } from "./collector";
import type { CollectorDeps } from "./collector-deps";
import { ProviderMalformed, ProviderRejected } from "./provider-errors";
import { QueryBudget } from "./query-budget";
import { cursorOf, isRecordValue as isRecord, queryStates } from "./query-cursor";
import { planQueries, type QueryDialect } from "./query-plan";
import { idOrder, redditItemOf } from "./reddit-map";
import { RedditTokens } from "./reddit-token";

// Reddit (reference/protocols.md "Reddit"), with an app-only token (reddit-token.ts):
// - keywords without subreddits: `/search?sort=new` site-wide;
// - keywords naming subreddits: `/r/{sub}/search?restrict_sr=1` for each, and `/r/{sub}/comments`, whose
//   comments the mention service matches itself (Reddit has no comment search).
// Each listing is read newest first with `after` until it reaches the newest item the previous poll saw
// (Reddit's `before` is unreliable with sort=new), at most REDDIT_MAX_PAGES pages a poll. A pass longer
// than that goes on next poll from its saved `after`, and only when it reaches the old boundary (or the
// listing's end) does `newest` move to the newest item of the pass, so nothing between is lost (as x.ts
// does with `next_token`). A listing never read before looks back one poll interval, or, in a new
// keyword's first search, its window (`lookbackMs`; Reddit's search has no limit of its own).

export const REDDIT_DIALECT: QueryDialect = { maxLength: 512, exclude: (term) => `NOT ${term}` };

export const REDDIT_MAX_PAGES = 5;

interface RedditListingState {
  /** The newest item seen (fullname) and when it was created. */
  newest?: string;
  newestMs?: number;
  /** A listing never read: items older than this are not news. */
  floorMs?: number;
  /** A pass in progress: the `after` to read next, and the newest item the pass has seen. */
  after?: string;
  passNewest?: string;
  passNewestMs?: number;
}

const FULLNAME = /^t[13]_[0-9a-z]+$/;
const isState = (v: unknown): v is RedditListingState =>
  isRecord(v) &&
  ["newest", "after", "passNewest"].every((k) => v[k] === undefined || (typeof v[k] === "string" && FULLNAME.test(v[k]))) &&
  ["newestMs", "floorMs", "passNewestMs"].every((k) => v[k] === undefined || typeof v[k] === "number");

/** Reddit's `t` windows, smallest first. */
const WINDOWS: ReadonlyArray<readonly [string, number]> = [
  ["hour", 3600_000],
  ["day", 86_400_000],
  ["week", 7 * 86_400_000],
  ["month", 28 * 86_400_000],
  ["year", 365 * 86_400_000],
];
const windowFor = (ageMs: number) => WINDOWS.find(([, ms]) => ms >= ageMs + 60_000)?.[0] ?? "all";

interface Listing {
  key: string;
  path: string;
  params: Record<string, string>;
}

const subredditsOf = (k: CollectKeyword) => [...new Set((k.filters.subreddits ?? []).map((s) => s.trim().replace(/^\/?r\//i, "").toLowerCase()).filter((s) => /^[a-z0-9_]{2,21}$/.test(s)))];

/** The listings a project's keywords need read. */
export const redditListings = (keywords: CollectKeyword[]): { listings: Listing[]; dropped: string[] } => {
  const listings: Listing[] = [];
  const dropped: string[] = [];
  const search = (path: string, ks: CollectKeyword[], extra: Record<string, string>) => {
    const plan = planQueries(ks, REDDIT_DIALECT);
    dropped.push(...plan.dropped);
    for (const q of plan.queries) listings.push({ key: `${path} ${q.text}`, path, params: { q: q.text, sort: "new", type: "link", ...extra } });
  };
  search("/search", keywords.filter((k) => subredditsOf(k).length === 0), {});
  const subs = [...new Set(keywords.flatMap(subredditsOf))].sort();
  for (const sub of subs) {
    search(`/r/${sub}/search`, keywords.filter((k) => subredditsOf(k).includes(sub)), { restrict_sr: "1" });
    listings.push({ key: `/r/${sub}/comments`, path: `/r/${sub}/comments`, params: {} });
  }
  return { listings, dropped };
};

export const createRedditCollector = (deps: CollectorDeps): Collector => {
  const { settings, http, logger } = deps;
  const configured = Boolean(settings.EARSHOT_REDDIT_CLIENT_ID && settings.EARSHOT_REDDIT_CLIENT_SECRET);
  const tokens = new RedditTokens(settings, http, deps.now);
  const intervalMs = settings.EARSHOT_POLL_INTERVAL_SECONDS * 1000;

  const get = async (url: string, signal: AbortSignal) => {
    for (let attempt = 0; ; attempt++) {
      const token = await tokens.get(signal);
      try {
        return await http.request<unknown>({ source: "reddit", url, headers: { authorization: `bearer ${token}`, "user-agent": settings.EARSHOT_REDDIT_USER_AGENT }, signal });
      } catch (err) {
        // A token Reddit no longer honours is replaced once; a second refusal is a real one.
        if (attempt === 0 && err instanceof ProviderRejected && err.status === 401) {
          tokens.invalidate(token);
          continue;
        }
        throw err;
      }
    }
  };

  const poll = async (input: PollInput): Promise<PollOutcome> => {
    const { listings, dropped } = redditListings(input.keywords);
    if (dropped.length) logger.warn({ source: "reddit", projectId: input.projectId, dropped }, "reddit: terms too long for a query are not searched");
    const previous = queryStates(input.cursor, isState);
    const states = new Map<string, RedditListingState>();
    const posts = new Map<string, CollectedPost>();
    const budget = new QueryBudget();
    const now = input.now.getTime();
    const lookbackMs = input.lookbackMs ?? intervalMs;
    let skipped = 0;

    for (const listing of listings) {
      const prev = previous.get(listing.key) ?? { floorMs: now - lookbackMs };
      states.set(listing.key, prev);
      if (budget.exhausted) continue;
      const seenOrder = prev.newest ? idOrder(prev.newest) : undefined;
      const floorMs = prev.newestMs ?? prev.floorMs ?? now - lookbackMs;
      let newest: { name: string; ms: number } | undefined = prev.passNewest && prev.passNewestMs !== undefined ? { name: prev.passNewest, ms: prev.passNewestMs } : undefined;
      let after = prev.after;
      let reached = false;
      for (let pages = 0; pages < (input.sample ? 1 : REDDIT_MAX_PAGES) && !reached && !budget.exhausted; pages++) {
        const params = new URLSearchParams({ ...listing.params, limit: "100", raw_json: "1" });
        if (listing.params.q) params.set("t", windowFor(now - floorMs));
        if (after) params.set("after", after);
        const res = await get(`${settings.EARSHOT_REDDIT_API_URL}${listing.path}?${params}`, input.signal);
        budget.note(res.rateLimit);
        const body = res.json;
        if (!isRecord(body) || !isRecord(body.data) || !Array.isArray(body.data.children)) throw new ProviderMalformed("reddit", `${listing.path} answered without a listing`);
        let bad = 0;
        for (const child of body.data.children) {
          const item = redditItemOf(child);
          if (!item) {
            bad += 1;
            continue;
          }
          if ((seenOrder !== undefined && item.order <= seenOrder) || item.createdMs < floorMs) {
            reached = true;
            continue;
          }
          if (!newest || item.order > idOrder(newest.name)) newest = { name: item.post.sourceId, ms: item.createdMs };
          posts.set(item.post.sourceId, item.post);
        }
        if (bad) logger.warn({ source: "reddit", projectId: input.projectId, listing: listing.path, skipped: bad }, "reddit: skipped listing items that could not be read");
        skipped += bad;
        after = typeof body.data.after === "string" && FULLNAME.test(body.data.after) ? body.data.after : undefined;
        if (!after) break;
      }
      const { after: _after, passNewest: _passNewest, passNewestMs: _passNewestMs, ...boundary } = prev;
      if (reached || !after) {
        // The pass is complete: the next one stops at its newest item (or where this one stopped, when it found none).
        states.set(listing.key, newest ? { newest: newest.name, newestMs: newest.ms } : boundary);
      } else {
        logger.info({ source: "reddit", projectId: input.projectId, listing: listing.path }, "reddit: more new items than one poll reads; the next poll goes on from here");
        states.set(listing.key, { ...boundary, after, ...(newest ? { passNewest: newest.name, passNewestMs: newest.ms } : {}) });
      }
    }
    return { posts: [...posts.values()], cursor: cursorOf(states), skipped, ...budget.outcome() };
  };

  return { source: "reddit", configured, searchesKeywords: true, poll };
};
