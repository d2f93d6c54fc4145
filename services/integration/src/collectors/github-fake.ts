import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// A fake of GitHub's REST search/issues, written from its public documentation: `q` with quoted terms,
// `is:issue`/`is:pr` and `created:>ISO`; sort=created order=desc; per_page/page; `total_count`, `items`;
// X-RateLimit-Limit/Remaining/Reset (epoch seconds) on every answer, 10 a minute without a token and 30
// with one; a spent window answered 403 with remaining 0. A test may queue failures (429 with Retry-After, 5xx).
// And POST /graphql's `search(type: DISCUSSION)`: signed-in callers only (401 otherwise), the same query
// qualifiers, `first`/`after` paging with opaque end cursors, `rateLimit { remaining resetAt }`, and errors
// as GraphQL sends them: a 200 whose `errors` list names the type (RATE_LIMITED with X-RateLimit-Remaining 0).

export interface FakeIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  html_url: string;
  user: { login: string; id: number; html_url: string };
  created_at: string;
  pull_request?: { url: string };
}

/** A discussion as GraphQL's search returns it (the fields the collector asks for). */
export interface FakeDiscussion {
  id: string;
  url: string;
  title: string;
  body: string;
  createdAt: string;
  author: { login: string; url: string } | null;
}

export interface GithubFake {
  url: string;
  items: FakeIssue[];
  requests: Array<{ q: URLSearchParams; authorization?: string }>;
  failures: Array<{ status: number; retryAfter?: string }>;
  discussions: FakeDiscussion[];
  graphqlRequests: Array<{ q: string; first: number; after: string | null; authorization?: string }>;
  /** GraphQL error types to answer next (each a 200 with an `errors` list), e.g. RATE_LIMITED. */
  graphqlErrors: string[];
  /** GraphQL's own budget (points an hour) and its reset. */
  graphqlWindow: { remaining: number; resetAt: string };
  /** Requests left in the current window, and when it resets (epoch seconds). */
  window: { remaining: number; reset: number };
  close(): Promise<void>;
}

export const startGithubFake = async (): Promise<GithubFake> => {
  const fake: Omit<GithubFake, "url" | "close"> = {
    items: [],
    requests: [],
    failures: [],
    window: { remaining: 10, reset: 0 },
    discussions: [],
    graphqlRequests: [],
    graphqlErrors: [],
    graphqlWindow: { remaining: 5000, resetAt: "2100-01-01T00:00:00Z" },
  };
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://fake");
    if (u.pathname === "/graphql" && req.method === "POST") return void answerGraphql(fake, req, res);
    if (u.pathname !== "/search/issues") return void res.writeHead(404).end();
    fake.requests.push({ q: u.searchParams, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    const limit = req.headers.authorization ? 30 : 10;
    const rl = { "x-ratelimit-limit": String(limit), "x-ratelimit-reset": String(fake.window.reset), "x-ratelimit-resource": "search" };
    const failure = fake.failures.shift();
    if (failure) {
      res.writeHead(failure.status, { "content-type": "application/json", ...rl, "x-ratelimit-remaining": String(fake.window.remaining), ...(failure.retryAfter ? { "retry-after": failure.retryAfter } : {}) });
      return void res.end(JSON.stringify({ message: "fake failure" }));
    }
    if (fake.window.remaining <= 0) {
      res.writeHead(403, { "content-type": "application/json", ...rl, "x-ratelimit-remaining": "0" });
      return void res.end(JSON.stringify({ message: "API rate limit exceeded", documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api" }));
    }
    fake.window.remaining -= 1;
    const q = u.searchParams.get("q") ?? "";
    const phrase = /"([^"]*)"/.exec(q)?.[1] ?? "";
    const isPr = /\bis:pr\b/.test(q);
    const after = /created:>(\S+)/.exec(q)?.[1];
    const per = Number(u.searchParams.get("per_page") ?? 30);
    const page = Number(u.searchParams.get("page") ?? 1);
    const all = fake.items
      .filter((i) => Boolean(i.pull_request) === isPr && (!after || Date.parse(i.created_at) > Date.parse(after)) && `${i.title} ${i.body ?? ""}`.toLowerCase().includes(phrase))
      .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    res.writeHead(200, { "content-type": "application/json", ...rl, "x-ratelimit-remaining": String(fake.window.remaining) });
    res.end(JSON.stringify({ total_count: all.length, incomplete_results: false, items: all.slice((page - 1) * per, page * per) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
};

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });

const answerGraphql = async (fake: Omit<GithubFake, "url" | "close">, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const json = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  };
  if (!req.headers.authorization) return json(401, { message: "This endpoint requires you to be authenticated.", documentation_url: "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql" });
  const { query, variables } = JSON.parse(await readBody(req)) as { query: string; variables: { q: string; first: number; after: string | null } };
  if (!/type:\s*DISCUSSION/.test(query)) return json(200, { errors: [{ message: "only discussion searches are faked" }] });
  fake.graphqlRequests.push({ ...variables, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
  const rl = { "x-ratelimit-limit": "5000", "x-ratelimit-resource": "graphql", "x-ratelimit-reset": String(Math.floor(Date.parse(fake.graphqlWindow.resetAt) / 1000)) };
  const error = fake.graphqlErrors.shift();
  if (error === "RATE_LIMITED") {
    return json(200, { data: null, errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded for user ID 1." }] }, { ...rl, "x-ratelimit-remaining": "0" });
  }
  if (error) return json(200, { data: null, errors: [{ type: error, message: `fake ${error}` }] }, { ...rl, "x-ratelimit-remaining": String(fake.graphqlWindow.remaining) });
  fake.graphqlWindow.remaining -= 1;
  const phrase = /"([^"]*)"/.exec(variables.q)?.[1] ?? "";
  const after = /created:>(\S+)/.exec(variables.q)?.[1];
  const all = fake.discussions
    .filter((d) => (!after || Date.parse(d.createdAt) > Date.parse(after)) && `${d.title} ${d.body}`.toLowerCase().includes(phrase))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const start = variables.after ? Number(Buffer.from(variables.after, "base64url").toString("utf8").replace("cursor:", "")) : 0;
  const nodes = all.slice(start, start + variables.first);
  const end = start + nodes.length;
  return json(
    200,
    {
      data: {
        search: { discussionCount: all.length, pageInfo: { hasNextPage: end < all.length, endCursor: nodes.length ? Buffer.from(`cursor:${end}`).toString("base64url") : null }, nodes },
        rateLimit: { remaining: fake.graphqlWindow.remaining, resetAt: fake.graphqlWindow.resetAt },
      },
    },
    { ...rl, "x-ratelimit-remaining": String(fake.graphqlWindow.remaining) },
  );
};
