import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A fake of GitHub's REST search/issues, written from its public documentation: `q` with quoted terms,
// `is:issue`/`is:pr` and `created:>ISO`; sort=created order=desc; per_page/page; `total_count`, `items`;
// X-RateLimit-Limit/Remaining/Reset (epoch seconds) on every answer, 10 a minute without a token and 30
// with one; a spent window answered 403 with remaining 0. A test may queue failures (429 with Retry-After, 5xx).

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

export interface GithubFake {
  url: string;
  items: FakeIssue[];
  requests: Array<{ q: URLSearchParams; authorization?: string }>;
  failures: Array<{ status: number; retryAfter?: string }>;
  /** Requests left in the current window, and when it resets (epoch seconds). */
  window: { remaining: number; reset: number };
  close(): Promise<void>;
}

export const startGithubFake = async (): Promise<GithubFake> => {
  const fake: Omit<GithubFake, "url" | "close"> = { items: [], requests: [], failures: [], window: { remaining: 10, reset: 0 } };
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://fake");
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
