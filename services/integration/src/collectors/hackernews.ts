import type { CollectedPost, Collector, PollInput, PollOutcome } from "./collector";
import type { CollectorDeps } from "./collector-deps";
import { hnPostOf } from "./hackernews-map";
import { ProviderMalformed } from "./provider-errors";
import { cursorOf, isRecordValue as isRecord, queryStates } from "./query-cursor";

// Hacker News through the public Algolia HN Search API (search_by_date, stories and comments), which
// needs no key: the source is always reachable. Algolia ANDs a query's words and has no OR or phrase
// exclusion, so each term (a keyword's value or alias) is its own query; the mention service re-checks
// exclusions and filters. Each query resumes after the newest created_at_i of its last complete pass
// (numericFilters=created_at_i>N). A pass reads newest first; when a poll runs out of pages first, the
// next poll continues the same pass from the saved page, and only then moves N, so nothing is lost.
// HTTP 429 and 5xx come back from provider-http as rate-limited/unavailable, honouring Retry-After.

export const HN_MAX_PAGES = 5;
export const HN_HITS_PER_PAGE = 100;
/** Keywords' terms searched per poll at most (Algolia allows 10,000 requests an hour per IP). */
const HN_MAX_QUERIES = 50;

interface HnQueryState {
  /** created_at_i of the newest hit of the last complete pass. */
  since: number;
  /** A pass in progress: the page to read next and the newest created_at_i the pass began with. */
  page?: number;
  passNewest?: number;
}

const isState = (v: unknown): v is HnQueryState =>
  isRecord(v) &&
  Number.isInteger(v.since) &&
  (v.page === undefined || Number.isInteger(v.page)) &&
  (v.passNewest === undefined || Number.isInteger(v.passNewest));

const termsOf = (input: PollInput): string[] => {
  const terms = new Set<string>();
  for (const k of [...input.keywords].sort((a, b) => a.id.localeCompare(b.id))) for (const t of [k.value, ...k.aliases]) terms.add(t.trim().toLowerCase());
  return [...terms].filter(Boolean).slice(0, HN_MAX_QUERIES);
};

export const createHackernewsCollector = (deps: CollectorDeps): Collector => {
  const { settings, http, logger } = deps;
  const intervalMs = settings.EARSHOT_POLL_INTERVAL_SECONDS * 1000;

  const poll = async (input: PollInput): Promise<PollOutcome> => {
    const previous = queryStates(input.cursor, isState);
    const states = new Map<string, HnQueryState>();
    const posts = new Map<string, CollectedPost>();
    let skipped = 0;
    for (const query of termsOf(input)) {
      const since = Math.floor((input.now.getTime() - (input.lookbackMs ?? intervalMs)) / 1000);
      const state: HnQueryState = { ...(previous.get(query) ?? { since }) };
      states.set(query, state);
      for (let n = 0; n < (input.sample ? 1 : HN_MAX_PAGES); n++) {
        const page = state.page ?? 0;
        const params = new URLSearchParams({
          query,
          tags: "(story,comment)",
          numericFilters: `created_at_i>${state.since}`,
          hitsPerPage: String(HN_HITS_PER_PAGE),
          page: String(page),
        });
        const res = await http.request<unknown>({ source: "hackernews", url: `${settings.EARSHOT_HACKERNEWS_API_URL}/search_by_date?${params}`, signal: input.signal });
        const body = res.json;
        if (!isRecord(body) || !Array.isArray(body.hits) || typeof body.nbPages !== "number") throw new ProviderMalformed("hackernews", "search answer without hits/nbPages");
        let bad = 0;
        for (const hit of body.hits) {
          const post = hnPostOf(hit);
          if (!post) {
            bad += 1;
            continue;
          }
          posts.set(post.sourceId, post);
          const at = Math.floor(Date.parse(post.publishedAt) / 1000);
          if (at > (state.passNewest ?? state.since)) state.passNewest = at;
        }
        if (bad) logger.warn({ source: "hackernews", projectId: input.projectId, skipped: bad }, "hackernews: skipped search hits that could not be read");
        skipped += bad;
        if (page + 1 < body.nbPages && body.hits.length > 0) {
          state.page = page + 1;
          continue;
        }
        if (state.passNewest !== undefined) state.since = state.passNewest;
        delete state.page;
        delete state.passNewest;
        break;
      }
    }
    return { posts: [...posts.values()], cursor: cursorOf(states), skipped };
  };

  return { source: "hackernews", configured: true, searchesKeywords: true, poll };
};
