import type { ProviderHttp } from "../collectors/provider-http";
import { ProviderRejected } from "../collectors/provider-errors";

// app.bsky.feed.searchPosts now answers only authenticated callers: a session from
// com.atproto.server.createSession (handle or email + app password), its access JWT refreshed with
// refreshSession when the AppView says it expired. Rate limits (429 with RateLimit-Reset) and 5xx are
// ProviderHttp's, as for every collector.

export interface BlueskyCredentials {
  identifier: string;
  appPassword: string;
}

export interface SearchPostsPage {
  posts: { uri: string; cid: string; author: { did: string; handle: string; displayName?: string }; record: { text?: string; createdAt?: string; langs?: string[] }; indexedAt: string }[];
  cursor?: string;
}

export class BlueskySearch {
  private access: string | undefined;
  private refresh: string | undefined;

  constructor(
    private readonly http: ProviderHttp,
    private readonly apiUrl: string,
    private readonly credentials: BlueskyCredentials | undefined,
  ) {}

  /** Without an app password there is no search (and so no backfill); source health says so. */
  get configured(): boolean {
    return this.credentials !== undefined;
  }

  /** One page of posts newer than `since`, newest first; `cursor` from the previous page. */
  async page(q: string, since: Date, cursor?: string, signal?: AbortSignal): Promise<SearchPostsPage> {
    const url = new URL(`${this.apiUrl.replace(/\/+$/, "")}/xrpc/app.bsky.feed.searchPosts`);
    url.searchParams.set("q", q);
    url.searchParams.set("since", since.toISOString());
    url.searchParams.set("sort", "latest");
    url.searchParams.set("limit", "100");
    if (cursor) url.searchParams.set("cursor", cursor);
    try {
      return await this.get(url.toString(), signal);
    } catch (err) {
      if (!(err instanceof ProviderRejected) || !expired(err)) throw err;
      await this.session(signal, true);
      return this.get(url.toString(), signal);
    }
  }

  private async get(url: string, signal?: AbortSignal): Promise<SearchPostsPage> {
    const token = await this.session(signal, false);
    const res = await this.http.request<SearchPostsPage>({ source: "bluesky", url, headers: { authorization: `Bearer ${token}` }, signal });
    return { posts: Array.isArray(res.json.posts) ? res.json.posts : [], cursor: res.json.cursor };
  }

  private async session(signal: AbortSignal | undefined, renew: boolean): Promise<string> {
    if (!this.credentials) throw new ProviderRejected("bluesky", 401, "no EARSHOT_BLUESKY_IDENTIFIER / EARSHOT_BLUESKY_APP_PASSWORD: search and backfill are off");
    if (this.access && !renew) return this.access;
    if (this.refresh && renew) {
      try {
        return this.keep(await this.http.request({ source: "bluesky", url: new URL(`${this.apiUrl.replace(/\/+$/, "")}/xrpc/com.atproto.server.refreshSession`).toString(), method: "POST", headers: { authorization: `Bearer ${this.refresh}` }, signal }));
      } catch (err) {
        if (!(err instanceof ProviderRejected)) throw err;
      }
    }
    const body = JSON.stringify({ identifier: this.credentials.identifier, password: this.credentials.appPassword });
    return this.keep(await this.http.request({ source: "bluesky", url: new URL(`${this.apiUrl.replace(/\/+$/, "")}/xrpc/com.atproto.server.createSession`).toString(), method: "POST", headers: { "content-type": "application/json" }, body, signal }));
  }

  private keep(res: { json: unknown }): string {
    const j = res.json as { accessJwt?: unknown; refreshJwt?: unknown };
    if (typeof j.accessJwt !== "string") throw new ProviderRejected("bluesky", 401, "session answer without accessJwt");
    this.access = j.accessJwt;
    this.refresh = typeof j.refreshJwt === "string" ? j.refreshJwt : undefined;
    return this.access;
  }
}

// The AppView answers an expired access token 400 {"error":"ExpiredToken"} (or 401).
const expired = (err: ProviderRejected): boolean => err.status === 401 || (err.status === 400 && err.body.includes("ExpiredToken"));
