import { compileMatcher, keywordFromEvent } from "@earshot/contracts/matcher";
import { createHash } from "node:crypto";
import type { Collection } from "@earshot/platform";
import { type FeedValidators, fetchFeed } from "../feeds/fetch-feed";
import type { FeedEntry } from "../feeds/parse-feed";
import type { FeedDoc } from "../store";
import type { CollectedPost, Collector, PollInput, PollOutcome } from "./collector";
import type { CollectorDeps } from "./collector-deps";
import { ProviderRateLimited } from "./provider-errors";
import { isRecordValue as isRecord } from "./query-cursor";

// RSS and Atom feeds, per project (the `feeds` resource): each poll fetches every feed of the project with
// a conditional GET (feeds/fetch-feed.ts), and the entries not seen before that match one of the project's
// keywords on `rss` become posts. A feed's first fetch reads only the first-search window (24 h by
// default) of entries, so adding a blog does not bring its archive; later fetches take every new entry,
// whatever its date. What was seen and the validators (ETag, Last-Modified) are the poll's cursor, saved
// with what it emits. One feed failing fails none of the others: its error, and since when it has been
// failing, go on the feed (read by list_feeds and source health); a 429 also keeps that feed alone from
// being asked again before its Retry-After.

const SEEN_KEPT = 1000;

interface FeedState extends FeedValidators {
  seen: string[];
}

const isFeedState = (v: unknown): v is FeedState =>
  isRecord(v) && Array.isArray(v.seen) && v.seen.every((s) => typeof s === "string") && (v.etag === undefined || typeof v.etag === "string") && (v.lastModified === undefined || typeof v.lastModified === "string");

/** An entry's source id: its own id when it fits, else a digest of it (the same entry, the same id). */
const sourceIdOf = (e: FeedEntry): string => (e.id.length <= 180 ? e.id : `sha256:${createHash("sha256").update(e.id).digest("hex")}`);

const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return "feed";
  }
};

export const feedPostOf = (feed: Pick<FeedDoc, "url" | "name">, e: FeedEntry, fetchedAt: Date): CollectedPost => {
  const site = hostOf(e.url ?? feed.url);
  const author = e.author?.trim() || feed.name || site;
  return {
    source: "rss",
    sourceId: sourceIdOf(e),
    url: e.url ?? feed.url,
    ...(e.title ? { title: e.title } : {}),
    text: e.text,
    author: { id: `${site}:${author}`.slice(0, 200), handle: author.slice(0, 100), name: author.slice(0, 200), url: `https://${site}` },
    publishedAt: (e.publishedAt ?? fetchedAt).toISOString(),
  };
};

export const createRssCollector = (deps: CollectorDeps): Collector => {
  const { settings } = deps;
  const feeds = (): Collection<FeedDoc> => {
    if (!deps.feeds) throw new Error("the rss collector needs the feeds collection");
    return deps.feeds;
  };

  const poll = async (input: PollInput): Promise<PollOutcome> => {
    const previous = isRecord(input.cursor) && isRecord(input.cursor.feeds) ? input.cursor.feeds : {};
    const matcher = compileMatcher(
      input.keywords.map((k) =>
        keywordFromEvent({ keywordId: k.id, groupId: "feeds", value: k.value, sources: k.sources, aliases: k.aliases, excludedTerms: k.excludedTerms, filters: k.filters, caseSensitive: k.caseSensitive }),
      ),
    );
    const next: Record<string, FeedState> = {};
    const posts = new Map<string, CollectedPost>();
    for (const feed of await feeds().find({ projectId: input.projectId }, { sort: { createdAt: 1 } })) {
      const stored: unknown = previous[feed._id];
      const state = isFeedState(stored) ? stored : undefined;
      if (state) next[feed._id] = state;
      if (input.signal.aborted) break;
      // A feed that said to come back later (429 with Retry-After) is not asked before then.
      if (feed.backoffUntil && feed.backoffUntil > deps.now()) continue;
      try {
        const got = await fetchFeed(feed.url, state ?? {}, { maxBytes: settings.EARSHOT_FEED_MAX_BYTES, allowPrivateNetworks: settings.EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS, now: () => deps.now().getTime() });
        const now = deps.now();
        let found = 0;
        if (!got.notModified) {
          const seen = new Set(state?.seen ?? []);
          // A feed read for the first time: only its recent entries, as a new keyword's first search.
          const from = state ? Number.NEGATIVE_INFINITY : now.getTime() - settings.EARSHOT_FIRST_SEARCH_LOOKBACK_HOURS * 3_600_000;
          for (const entry of got.feed.entries) {
            if (seen.has(entry.id) || (entry.publishedAt ?? now).getTime() < from) continue;
            const post = feedPostOf(feed, entry, now);
            if (matcher.match(post).length === 0) continue;
            if (!posts.has(post.sourceId)) found += 1;
            posts.set(post.sourceId, post);
          }
          const current = got.feed.entries.map((e) => e.id);
          const kept = new Set(current);
          next[feed._id] = { ...got.validators, seen: [...current, ...(state?.seen ?? []).filter((id) => !kept.has(id))].slice(0, SEEN_KEPT) };
        }
        await feeds().updateOne(
          { _id: feed._id },
          { $set: { lastFetchedAt: now, lastSuccessAt: now }, $unset: { lastError: true, failingSince: true, failureReportedAt: true, backoffUntil: true }, $inc: { entriesFound: found } },
        );
      } catch (err) {
        const now = deps.now();
        const status = typeof (err as { status?: unknown }).status === "number" ? (err as { status: number }).status : 0;
        deps.logger.warn({ err, projectId: input.projectId, feedId: feed._id }, "feed fetch failed");
        await feeds().updateOne(
          { _id: feed._id },
          {
            $set: {
              lastFetchedAt: now,
              lastError: { at: now, message: (err as Error).message.slice(0, 500), status },
              failingSince: feed.failingSince ?? now,
              ...(err instanceof ProviderRateLimited ? { backoffUntil: err.retryAt } : {}),
            },
          },
        );
      }
    }
    return { posts: [...posts.values()], cursor: { feeds: next }, skipped: 0 };
  };

  return {
    source: "rss",
    configured: true,
    // Feeds are read whole at every poll: there is nothing to search for a new keyword.
    searchesKeywords: false,
    poll,
  };
};
