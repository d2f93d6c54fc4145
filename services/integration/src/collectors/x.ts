import type { CollectedPost, Collector, PollInput, PollOutcome } from "./collector";
import type { CollectorDeps } from "./collector-deps";
import { ProviderMalformed } from "./provider-errors";
import { QueryBudget } from "./query-budget";
import { cursorOf, isRecordValue as isRecord, queryStates } from "./query-cursor";
import { planQueries, type QueryDialect } from "./query-plan";
import { xPostOf, xUsersOf } from "./x-map";

// X recent search (reference/protocols.md "X API v2"). One query per group of keywords (query-plan.ts);
// each query resumes from the `meta.newest_id` of its last complete pass (`since_id`). A pass pages with
// `next_token` until X gives none; when a poll runs out of pages first, the pass continues next poll from
// the saved token, and only then moves `since_id`, so nothing between is lost. A query never seen before
// looks back one poll interval (`start_time`), not X's whole week; a new keyword's first search looks back
// its window (`lookbackMs`), at most the 7 days recent search reaches.

export const X_DIALECT: QueryDialect = {
  maxLength: 512,
  exclude: (term) => `-${term}`,
  languages: (langs) => (langs.length === 1 ? `lang:${langs[0]}` : `(${langs.map((l) => `lang:${l}`).join(" OR ")})`),
  always: "-is:retweet",
};

/** How far back recent search reaches. */
const X_WINDOW_MS = 7 * 86_400_000;
const X_EPOCH_MS = 1288834974657;
/** When a post was created, from its snowflake id. */
const msOfXId = (id: string): number => Number(BigInt(id) >> 22n) + X_EPOCH_MS;

/** X's documented time form, YYYY-MM-DDTHH:mm:ssZ (no fractions of a second). */
export const xTime = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Pages one poll reads per query at most (100 posts each). */
export const X_MAX_PAGES = 5;

interface XQueryState {
  sinceId?: string;
  startTime?: string;
  /** A pass in progress: the page to read next and the newest id the pass began with. */
  nextToken?: string;
  passNewest?: string;
}

const isState = (v: unknown): v is XQueryState =>
  isRecord(v) &&
  ["sinceId", "passNewest"].every((k) => v[k] === undefined || (typeof v[k] === "string" && /^\d{1,19}$/.test(v[k]))) &&
  ["startTime", "nextToken"].every((k) => v[k] === undefined || typeof v[k] === "string");

export const createXCollector = (deps: CollectorDeps): Collector => {
  const { settings, http, logger } = deps;
  const token = settings.EARSHOT_X_BEARER_TOKEN;
  const intervalMs = settings.EARSHOT_POLL_INTERVAL_SECONDS * 1000;

  const poll = async (input: PollInput): Promise<PollOutcome> => {
    const plan = planQueries(input.keywords, X_DIALECT);
    if (plan.dropped.length) logger.warn({ source: "x", projectId: input.projectId, dropped: plan.dropped }, "x: terms too long for a query are not searched");
    const previous = queryStates(input.cursor, isState);
    const states = new Map<string, XQueryState>();
    const posts = new Map<string, CollectedPost>();
    const budget = new QueryBudget();
    let skipped = 0;

    for (const { text: query } of plan.queries) {
      const state: XQueryState = { ...(previous.get(query) ?? { startTime: new Date(input.now.getTime() - (input.lookbackMs ?? intervalMs)).toISOString() }) };
      states.set(query, state);
      for (let page = 0; page < (input.sample ? 1 : X_MAX_PAGES) && !budget.exhausted; page++) {
        const params = new URLSearchParams({
          query,
          max_results: "100",
          "tweet.fields": "created_at,public_metrics,author_id,lang",
          expansions: "author_id",
          "user.fields": "username,name",
        });
        // Recent search refuses a since_id or start_time older than its 7 days: a cursor that old (a long
        // outage, or a query that has found nothing for a week) resumes from the window's start instead.
        const oldest = input.now.getTime() - X_WINDOW_MS + 60_000;
        if (state.sinceId && msOfXId(state.sinceId) > oldest) params.set("since_id", state.sinceId);
        else if (state.sinceId || state.startTime) params.set("start_time", xTime(Math.max(oldest, state.startTime ? Date.parse(state.startTime) : 0)));
        if (state.nextToken) params.set("next_token", state.nextToken);
        const res = await http.request<unknown>({
          source: "x",
          url: `${settings.EARSHOT_X_API_URL}/2/tweets/search/recent?${params}`,
          headers: { authorization: `Bearer ${token}` },
          signal: input.signal,
        });
        budget.note(res.rateLimit);
        const body = res.json;
        if (!isRecord(body) || (body.data !== undefined && !Array.isArray(body.data)) || !isRecord(body.meta)) throw new ProviderMalformed("x", "search answer without data/meta");
        const users = xUsersOf(body.includes);
        const items = (body.data as unknown[] | undefined) ?? [];
        let bad = 0;
        for (const item of items) {
          const post = xPostOf(item, users);
          if (post) posts.set(post.sourceId, post);
          else bad += 1;
        }
        if (bad) logger.warn({ source: "x", projectId: input.projectId, skipped: bad }, "x: skipped search results that could not be read");
        skipped += bad;
        const { newest_id: newest, next_token: next } = body.meta;
        if (!state.nextToken && typeof newest === "string" && /^\d+$/.test(newest)) state.passNewest = newest;
        if (typeof next === "string" && next) {
          state.nextToken = next;
          continue;
        }
        // The pass is complete: the next one starts after its newest post (or where it started, when it found none).
        if (state.passNewest) {
          state.sinceId = state.passNewest;
          delete state.startTime;
        }
        delete state.nextToken;
        delete state.passNewest;
        break;
      }
    }
    return { posts: [...posts.values()], cursor: cursorOf(states), skipped, ...budget.outcome() };
  };

  return { source: "x", configured: Boolean(token), searchesKeywords: true, poll };
};
