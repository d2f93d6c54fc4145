import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A fake of the Algolia HN Search API's search_by_date, written from its public documentation: hits
// newest first, `query` words ANDed case-insensitively, `tags=(story,comment)`, `numericFilters=
// created_at_i>N`, `hitsPerPage`/`page` paging with `nbPages`. A test queues failures (429 with
// Retry-After, 5xx) to be answered before the next searches.

export interface FakeHit {
  objectID: string;
  created_at_i: number;
  author: string;
  _tags: string[];
  title?: string | null;
  story_title?: string | null;
  story_id?: number | null;
  comment_text?: string | null;
  story_text?: string | null;
  url?: string | null;
}

export interface HnFake {
  url: string;
  hits: FakeHit[];
  requests: URLSearchParams[];
  failures: Array<{ status: number; retryAfter?: string }>;
  close(): Promise<void>;
}

const textOf = (h: FakeHit) => [h.title, h.story_title, h.comment_text, h.story_text].filter(Boolean).join(" ").toLowerCase();

export const startHnFake = async (): Promise<HnFake> => {
  const fake: Omit<HnFake, "url" | "close"> = { hits: [], requests: [], failures: [] };
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://fake");
    if (u.pathname !== "/api/v1/search_by_date") return void res.writeHead(404).end();
    fake.requests.push(u.searchParams);
    const failure = fake.failures.shift();
    if (failure) {
      res.writeHead(failure.status, { "content-type": "application/json", ...(failure.retryAfter ? { "retry-after": failure.retryAfter } : {}) });
      return void res.end(JSON.stringify({ message: "fake failure", status: failure.status }));
    }
    const words = (u.searchParams.get("query") ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    const after = Number(/^created_at_i>(\d+)$/.exec(u.searchParams.get("numericFilters") ?? "")?.[1] ?? 0);
    const per = Number(u.searchParams.get("hitsPerPage") ?? 20);
    const page = Number(u.searchParams.get("page") ?? 0);
    const all = fake.hits
      .filter((h) => h.created_at_i > after && words.every((w) => textOf(h).includes(w)) && h._tags.some((t) => t === "story" || t === "comment"))
      .sort((a, b) => b.created_at_i - a.created_at_i);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ hits: all.slice(page * per, (page + 1) * per), nbHits: all.length, nbPages: Math.ceil(all.length / per), page, hitsPerPage: per }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}/api/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
};
