import type { IntegrationSettings } from "../config";
import { ProviderMalformed } from "./provider-errors";
import type { ProviderHttp } from "./provider-http";
import { isRecordValue as isRecord } from "./query-cursor";

// Reddit's app-only token (client credentials), kept until shortly before it expires: one token serves
// every poll of every project, and concurrent polls wait on the same request for a new one. That request
// belongs to no poll: it runs with no poll's abort signal, so one project's poll stopping never fails the
// others waiting on it; each waiter stops waiting on its own signal.

/** How long before Reddit's stated expiry the token is replaced. */
export const REDDIT_TOKEN_MARGIN_MS = 5 * 60_000;

/** `promise`, or the signal's reason as soon as it aborts (the promise itself goes on). */
const untilAborted = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> => {
  const reasonOf = () => (signal.reason instanceof Error ? signal.reason : new Error("aborted"));
  if (signal.aborted) return Promise.reject(reasonOf());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reasonOf());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
};

export class RedditTokens {
  private current?: { token: string; expiresAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly settings: IntegrationSettings,
    private readonly http: ProviderHttp,
    private readonly now: () => Date,
  ) {}

  /** A token valid now, from the cache or a new one. */
  get(signal?: AbortSignal): Promise<string> {
    if (this.current && this.current.expiresAt > this.now().getTime()) return Promise.resolve(this.current.token);
    this.pending ??= this.issue().finally(() => {
      this.pending = undefined;
    });
    return signal ? untilAborted(this.pending, signal) : this.pending;
  }

  /** Reddit refused `token` (revoked or expired early): the next `get` asks for a new one. */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private async issue(): Promise<string> {
    const { EARSHOT_REDDIT_CLIENT_ID: id = "", EARSHOT_REDDIT_CLIENT_SECRET: secret = "" } = this.settings;
    const res = await this.http.request<unknown>({
      source: "reddit",
      url: `${this.settings.EARSHOT_REDDIT_AUTH_URL}/api/v1/access_token`,
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
        "user-agent": this.settings.EARSHOT_REDDIT_USER_AGENT,
      },
      body: "grant_type=client_credentials",
    });
    const body = res.json;
    if (!isRecord(body) || typeof body.access_token !== "string" || !body.access_token) {
      throw new ProviderMalformed("reddit", `token answer without access_token${isRecord(body) && typeof body.error === "string" ? ` (${body.error})` : ""}`);
    }
    const ttlMs = (typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 3600) * 1000;
    this.current = { token: body.access_token, expiresAt: this.now().getTime() + Math.max(ttlMs - REDDIT_TOKEN_MARGIN_MS, ttlMs / 2) };
    return body.access_token;
  }
}
