import type { CollectedPost, Collector, PollInput, PollOutcome } from "./collector";
import type { CollectorDeps } from "./collector-deps";
import { DISCUSSION_QUERY, DISCUSSIONS_PER_PAGE, graphqlUrlOf, readDiscussionPage } from "./github-discussions";
import { githubPostOf } from "./github-map";
import { ProviderMalformed, ProviderRateLimited, ProviderRejected } from "./provider-errors";
import { resetOf } from "./provider-http";
import { QueryBudget } from "./query-budget";
import { cursorOf, isRecordValue as isRecord, queryStates } from "./query-cursor";

// GitHub issues and pull requests through the REST search API (GET /search/issues, sort=created), each
// term (a keyword's value or alias, quoted) searched twice: `is:issue` and `is:pr`, as GitHub now requires
// one of them. A query resumes after the newest created_at of its last complete pass (`created:>T`);
// pages of 100 newest first, continued across polls like the other collectors. The token is optional:
// without it GitHub allows 10 search requests a minute per IP, with it 30; X-RateLimit-Remaining 0 stops
// the poll until X-RateLimit-Reset, and a 403/429 rate-limit answer backs off until Retry-After or the
// reset. Discussions need GraphQL, which GitHub only serves to authenticated callers: with a token each
// term is also searched there (github-discussions.ts), resuming the same way from `created:>T`, pages
// followed by GraphQL's end cursor; GraphQL's own budget (points an hour) stops only the discussions.

export const GITHUB_MAX_PAGES = 3;
const PER_PAGE = 100;
/** Search answers at most 1,000 results per query. */
const GITHUB_RESULT_CAP = 1000;
const KINDS = ["is:issue", "is:pr"] as const;

interface GithubQueryState {
  /** created_at (ISO, seconds) of the newest item of the last complete pass. */
  since: string;
  page?: number;
  /** A discussions query's next page: GraphQL's end cursor. */
  after?: string;
  passNewest?: string;
}

const isState = (v: unknown): v is GithubQueryState =>
  isRecord(v) &&
  typeof v.since === "string" &&
  (v.page === undefined || Number.isInteger(v.page)) &&
  (v.after === undefined || typeof v.after === "string") &&
  (v.passNewest === undefined || typeof v.passNewest === "string");

const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

const termsOf = (input: PollInput): string[] => {
  const terms = new Set<string>();
  for (const k of [...input.keywords].sort((a, b) => a.id.localeCompare(b.id)))
    for (const t of [k.value, ...k.aliases]) terms.add(`"${t.replace(/"/g, " ").replace(/\s+/g, " ").trim().toLowerCase()}"`);
  return [...terms].filter((t) => t !== '""');
};

/** What source health says of GitHub without a token: its lower limit, and the discussions it cannot search. */
export const githubNotes = (withToken: boolean): string[] =>
  withToken
    ? []
    : [
        "Searched without a token: GitHub allows 10 searches a minute from this address (30 with EARSHOT_GITHUB_TOKEN), so polls of many keywords wait for the limit.",
        "Discussions are not collected: GitHub searches them only for signed-in callers (set EARSHOT_GITHUB_TOKEN).",
      ];

export const createGithubCollector = (deps: CollectorDeps): Collector => {
  const { settings, http, logger } = deps;
  const token = settings.EARSHOT_GITHUB_TOKEN;
  const intervalMs = settings.EARSHOT_POLL_INTERVAL_SECONDS * 1000;
  const headers: Record<string, string> = {
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };

  const search = async (q: string, page: number, signal: AbortSignal) => {
    const params = new URLSearchParams({ q, sort: "created", order: "desc", per_page: String(PER_PAGE), page: String(page) });
    try {
      return await http.request<unknown>({ source: "github", url: `${settings.EARSHOT_GITHUB_API_URL}/search/issues?${params}`, headers, signal });
    } catch (err) {
      // GitHub answers a spent rate limit with 403 (or 429) and X-RateLimit-Remaining: 0.
      if (err instanceof ProviderRejected && err.status === 403 && err.headers && (err.headers.get("x-ratelimit-remaining") === "0" || err.headers.has("retry-after")))
        throw new ProviderRateLimited("github", resetOf(err.headers, deps.now().getTime()) ?? new Date(deps.now().getTime() + 60_000), 403);
      throw err;
    }
  };

  const graphqlUrl = graphqlUrlOf(settings.EARSHOT_GITHUB_API_URL);
  const searchDiscussions = async (q: string, after: string | undefined, first: number, signal: AbortSignal) =>
    readDiscussionPage(
      await http.request<unknown>({
        source: "github",
        url: graphqlUrl,
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ query: DISCUSSION_QUERY, variables: { q, first, after: after ?? null } }),
        signal,
      }),
      deps.now(),
    );

  const poll = async (input: PollInput): Promise<PollOutcome> => {
    const previous = queryStates(input.cursor, isState);
    const states = new Map<string, GithubQueryState>();
    const posts = new Map<string, CollectedPost>();
    const budget = new QueryBudget();
    let skipped = 0;
    for (const term of termsOf(input)) {
      for (const kind of KINDS) {
        const key = `${term} ${kind}`;
        const state: GithubQueryState = { ...(previous.get(key) ?? { since: isoSeconds(input.now.getTime() - (input.lookbackMs ?? intervalMs)) }) };
        states.set(key, state);
        for (let n = 0; n < (input.sample ? 1 : GITHUB_MAX_PAGES) && !budget.exhausted; n++) {
          const page = state.page ?? 1;
          const res = await search(`${term} ${kind} created:>${state.since}`, page, input.signal);
          budget.note(res.rateLimit);
          const body = res.json;
          if (!isRecord(body) || !Array.isArray(body.items) || typeof body.total_count !== "number") throw new ProviderMalformed("github", "search answer without items/total_count");
          let bad = 0;
          for (const item of body.items) {
            const post = githubPostOf(item);
            if (!post) {
              bad += 1;
              continue;
            }
            posts.set(post.sourceId, post);
            const at = isoSeconds(Date.parse(post.publishedAt));
            if (at > (state.passNewest ?? state.since)) state.passNewest = at;
          }
          if (bad) logger.warn({ source: "github", projectId: input.projectId, skipped: bad }, "github: skipped search items that could not be read");
          skipped += bad;
          if (body.items.length === PER_PAGE && page * PER_PAGE < Math.min(body.total_count, GITHUB_RESULT_CAP)) {
            state.page = page + 1;
            continue;
          }
          if (state.passNewest !== undefined) state.since = state.passNewest;
          delete state.page;
          delete state.passNewest;
          break;
        }
      }
    }
    // Discussions, with a token only (GraphQL serves no one else).
    const graphqlBudget = new QueryBudget();
    for (const term of token ? termsOf(input) : []) {
      const key = `${term} discussions`;
      const state: GithubQueryState = { ...(previous.get(key) ?? { since: isoSeconds(input.now.getTime() - (input.lookbackMs ?? intervalMs)) }) };
      states.set(key, state);
      for (let n = 0; n < (input.sample ? 1 : GITHUB_MAX_PAGES) && !graphqlBudget.exhausted; n++) {
        const page = await searchDiscussions(`${term} created:>${state.since}`, state.after, input.sample ? 10 : DISCUSSIONS_PER_PAGE, input.signal);
        graphqlBudget.note({ remaining: page.remaining, resetAt: page.resetAt });
        for (const post of page.posts) {
          posts.set(post.sourceId, post);
          const at = isoSeconds(Date.parse(post.publishedAt));
          if (at > (state.passNewest ?? state.since)) state.passNewest = at;
        }
        if (page.skipped) logger.warn({ source: "github", projectId: input.projectId, skipped: page.skipped }, "github: skipped discussions that could not be read");
        skipped += page.skipped;
        if (page.hasNextPage && page.endCursor) {
          state.after = page.endCursor;
          continue;
        }
        if (state.passNewest !== undefined) state.since = state.passNewest;
        delete state.after;
        delete state.passNewest;
        break;
      }
    }
    return { posts: [...posts.values()], cursor: cursorOf(states), skipped, ...budget.outcome() };
  };

  return { source: "github", configured: true, searchesKeywords: true, notes: githubNotes(Boolean(token)), poll };
};
