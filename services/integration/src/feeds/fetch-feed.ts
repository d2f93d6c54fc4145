import { guardedRequest, reachRefusal } from "@earshot/platform";
import { ProviderRateLimited, ProviderRejected, ProviderUnavailable } from "../collectors/provider-errors";
import { resetOf } from "../collectors/provider-http";
import { type ParsedFeed, parseFeed } from "./parse-feed";

// One conditional GET of a feed under the outbound rule webhooks follow (every address public unless the
// operator allows private networks; plain http only to those; each redirect hop checked again, at most 3),
// a bounded body (refused at the bound, never read whole), and the validators it answered kept for the
// next GET: `If-None-Match` from its ETag, `If-Modified-Since` from its Last-Modified. 304: nothing new.

export interface FeedValidators {
  etag?: string;
  lastModified?: string;
}

export type FeedFetch = { notModified: true } | { notModified: false; feed: ParsedFeed; validators: FeedValidators };

export interface FeedFetchOptions {
  maxBytes: number;
  allowPrivateNetworks: boolean;
  timeoutMs?: number;
  now: () => number;
}

const header = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

export const fetchFeed = async (url: string, validators: FeedValidators, options: FeedFetchOptions): Promise<FeedFetch> => {
  const guard = { allowPrivateNetworks: options.allowPrivateNetworks };
  let res;
  try {
    res = await guardedRequest(url, {
      ...guard,
      maxBytes: options.maxBytes,
      timeoutMs: options.timeoutMs ?? 15_000,
      maxRedirects: 3,
      headers: {
        accept: "application/rss+xml, application/atom+xml, application/rdf+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5",
        "user-agent": "Earshot feed reader (+https://github.com/earshot)",
        ...(validators.etag ? { "if-none-match": validators.etag } : {}),
        ...(validators.lastModified ? { "if-modified-since": validators.lastModified } : {}),
      },
    });
  } catch (err) {
    // The outbound rule's refusal in the words the API uses; anything else (size, timeout, network) as it is.
    const refusal = reachRefusal(err, guard);
    throw new ProviderRejected("rss", 0, refusal ? `the feed's URL ${refusal}` : (err as Error).message);
  }
  if (res.status === 304) return { notModified: true };
  const headers = new Headers(Object.entries(res.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(header(v))]])) as [string, string][]);
  if (res.status === 429) throw new ProviderRateLimited("rss", resetOf(headers, options.now()) ?? new Date(options.now() + 3_600_000));
  if (res.status >= 500) throw new ProviderUnavailable("rss", res.status, `the feed answered ${res.status}`);
  if (res.status !== 200) throw new ProviderRejected("rss", res.status, `the feed answered ${res.status}`);
  const feed = parseFeed(res.text);
  const etag = header(res.headers.etag);
  const lastModified = header(res.headers["last-modified"]);
  return { notModified: false, feed, validators: { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) } };
};
