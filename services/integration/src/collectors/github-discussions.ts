import type { CollectedPost } from "./collector";
import { ProviderMalformed, ProviderRateLimited, ProviderRejected } from "./provider-errors";
import { type ProviderResponse, resetOf } from "./provider-http";
import { isRecordValue as isRecord } from "./query-cursor";

// GitHub Discussions, which the REST search does not return: GraphQL's `search(type: DISCUSSION)`, served
// only to signed-in callers (so only with EARSHOT_GITHUB_TOKEN). The query string takes the same qualifiers
// as the REST search (`"term" created:>T`); pages of 50 follow `pageInfo.endCursor`. GraphQL answers most
// failures with 200 and an `errors` list: RATE_LIMITED backs off until `rateLimit.resetAt` (or the
// X-RateLimit-Reset header), anything else is a refusal.

export const DISCUSSIONS_PER_PAGE = 50;

export const DISCUSSION_QUERY = `query($q: String!, $first: Int!, $after: String) {
  search(query: $q, type: DISCUSSION, first: $first, after: $after) {
    discussionCount
    pageInfo { hasNextPage endCursor }
    nodes {
      ... on Discussion {
        id
        url
        title
        body
        createdAt
        author { login url }
      }
    }
  }
  rateLimit { remaining resetAt }
}`;

/**
 * GitHub's GraphQL endpoint for a REST base URL: `https://api.github.com` -> `https://api.github.com/graphql`;
 * GitHub Enterprise's `https://<host>/api/v3` -> `https://<host>/api/graphql`.
 */
export const graphqlUrlOf = (restBase: string): string => {
  const base = restBase.replace(/\/+$/, "");
  return base.endsWith("/api/v3") ? `${base.slice(0, -"/v3".length)}/graphql` : `${base}/graphql`;
};

/** GitHub bodies may be long Markdown; the mention service bounds text, so keep its first part. */
const MAX_TEXT = 4000;
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** A search node as a Post; null when it is not a readable discussion. Its node id is its source id. */
export const discussionPostOf = (node: unknown): CollectedPost | null => {
  if (!isRecord(node)) return null;
  const id = str(node.id);
  const url = str(node.url);
  const title = str(node.title);
  const created = str(node.createdAt);
  if (!id || !url || !title || !created || Number.isNaN(Date.parse(created))) return null;
  // A deleted account's discussion has no author: GitHub shows it as "ghost".
  const author = isRecord(node.author) ? node.author : undefined;
  const login = str(author?.login) ?? "ghost";
  const body = str(node.body) ?? "";
  return {
    source: "github",
    sourceId: id,
    url,
    title: title.slice(0, 300),
    text: (body || title).slice(0, MAX_TEXT),
    author: { id: login, handle: login, name: login, url: str(author?.url) ?? `https://github.com/${login}` },
    publishedAt: new Date(Date.parse(created)).toISOString(),
  };
};

export interface DiscussionPage {
  posts: CollectedPost[];
  skipped: number;
  count: number;
  endCursor?: string;
  hasNextPage: boolean;
  /** GraphQL's own budget (points an hour), which is not the REST search's. */
  remaining?: number;
  resetAt?: Date;
}

/** Reads one answer of DISCUSSION_QUERY, or throws the provider error it stands for. */
export const readDiscussionPage = (res: ProviderResponse, now: Date): DiscussionPage => {
  const body = res.json;
  if (!isRecord(body)) throw new ProviderMalformed("github", "GraphQL answer is not an object");
  const rate = isRecord(body.data) && isRecord(body.data.rateLimit) ? body.data.rateLimit : undefined;
  const resetAt = typeof rate?.resetAt === "string" && !Number.isNaN(Date.parse(rate.resetAt)) ? new Date(Date.parse(rate.resetAt)) : undefined;
  if (Array.isArray(body.errors) && body.errors.length > 0) {
    const first: unknown = body.errors[0];
    const type = isRecord(first) ? first.type : undefined;
    const message = isRecord(first) && typeof first.message === "string" ? first.message : "GraphQL error";
    // A spent budget is still a 200, with X-RateLimit-Remaining 0 and its reset in the headers.
    if (type === "RATE_LIMITED") throw new ProviderRateLimited("github", resetAt && resetAt > now ? resetAt : (resetOf(res.headers, now.getTime()) ?? new Date(now.getTime() + 60_000)), 200);
    throw new ProviderRejected("github", 200, `GraphQL: ${message}`);
  }
  const search = isRecord(body.data) && isRecord(body.data.search) ? body.data.search : undefined;
  if (!search || !Array.isArray(search.nodes) || !isRecord(search.pageInfo) || typeof search.discussionCount !== "number") {
    throw new ProviderMalformed("github", "GraphQL search answer without nodes/pageInfo/discussionCount");
  }
  const posts: CollectedPost[] = [];
  let skipped = 0;
  for (const node of search.nodes) {
    const post = discussionPostOf(node);
    if (post) posts.push(post);
    else skipped += 1;
  }
  return {
    posts,
    skipped,
    count: search.discussionCount,
    endCursor: str(search.pageInfo.endCursor),
    hasNextPage: search.pageInfo.hasNextPage === true,
    remaining: typeof rate?.remaining === "number" ? rate.remaining : undefined,
    resetAt,
  };
};
