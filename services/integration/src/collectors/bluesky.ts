import { BlueskySearch, type SearchPostsPage } from "../bluesky/search-posts";
import type { StreamDoc } from "../store";
import type { CollectedPost, Collector, PollInput, PollOutcome } from "./collector";
import type { CollectorDeps } from "./collector-deps";

// Bluesky as the poller sees it. New posts come from the live stream (bluesky/stream-runner.ts), which
// hands them to the pollers itself, so a regular poll has nothing to fetch. What a poll does is the first
// search of a new or changed keyword: app.bsky.feed.searchPosts 24 h back, which Bluesky serves only to a
// signed-in account (EARSHOT_BLUESKY_IDENTIFIER and EARSHOT_BLUESKY_APP_PASSWORD); without them there is
// no first search and source health says so. Source health also says how the stream is doing, from the
// stream's document (whichever replica reads it).

export const BLUESKY_SEARCH_PAGES = 3;

const POST_COLLECTION = "app.bsky.feed.post";

/** A searchPosts post as a Post: the same source id and link as the stream gives it, with its author's handle. */
export const searchedPostOf = (p: SearchPostsPage["posts"][number]): CollectedPost | null => {
  const m = /^at:\/\/([^/]+)\/app\.bsky\.feed\.post\/([^/]+)$/.exec(p.uri ?? "");
  const text = p.record?.text;
  if (!m || typeof text !== "string" || !p.author?.did) return null;
  const [, did, rkey] = m as unknown as [string, string, string];
  const handle = p.author.handle && p.author.handle !== "handle.invalid" ? p.author.handle : did;
  const created = Date.parse(p.record.createdAt ?? "");
  const indexed = Date.parse(p.indexedAt ?? "");
  const at = Number.isFinite(created) ? created : indexed;
  if (!Number.isFinite(at)) return null;
  const post: CollectedPost = {
    source: "bluesky",
    sourceId: `at://${did}/${POST_COLLECTION}/${rkey}`,
    url: `https://bsky.app/profile/${handle}/post/${rkey}`,
    text,
    author: { id: did, handle, name: p.author.displayName?.trim() || handle, url: `https://bsky.app/profile/${handle}` },
    publishedAt: new Date(at).toISOString(),
  };
  if (p.record.langs?.[0]) post.lang = p.record.langs[0];
  return post;
};

const termsOf = (input: PollInput): string[] => {
  const terms = new Set<string>();
  for (const k of [...input.keywords].sort((a, b) => a.id.localeCompare(b.id)))
    for (const t of [k.value, ...k.aliases]) terms.add(`"${t.replace(/"/g, " ").replace(/\s+/g, " ").trim()}"`);
  return [...terms].filter((t) => t !== '""');
};

/** What source health says of the stream, from its document. */
export const streamNotes = (doc: StreamDoc | null, now: Date): string[] => {
  const live = doc?.leaseOwner && doc.leaseUntil && doc.leaseUntil > now;
  if (!doc || !live) return ["Live stream: not being read (no project listens on Bluesky yet, or it is starting)."];
  if (!doc.connected) return [`Live stream: disconnected${doc.lastError ? ` (${doc.lastError})` : ""}; reconnecting.`];
  const lagS = doc.cursorUs === undefined ? undefined : Math.max(0, (doc.savedAt.getTime() - doc.cursorUs / 1000) / 1000);
  return [`Live stream: connected${lagS === undefined ? "" : `, ${lagS.toFixed(1)} s behind the network`} (as of ${doc.savedAt.toISOString()}).`];
};

export const createBlueskyCollector = (deps: CollectorDeps): Collector => {
  const { settings } = deps;
  const credentials =
    settings.EARSHOT_BLUESKY_IDENTIFIER && settings.EARSHOT_BLUESKY_APP_PASSWORD
      ? { identifier: settings.EARSHOT_BLUESKY_IDENTIFIER, appPassword: settings.EARSHOT_BLUESKY_APP_PASSWORD }
      : undefined;
  const search = new BlueskySearch(deps.http, settings.EARSHOT_BLUESKY_API_URL, credentials);

  const poll = async (input: PollInput): Promise<PollOutcome> => {
    // The stream delivers new posts; only a first search or a live sample searches.
    if (!search.configured || (input.lookbackMs === undefined && !input.sample)) return { posts: [], cursor: input.cursor ?? null, skipped: 0 };
    const since = new Date(input.now.getTime() - (input.lookbackMs ?? 24 * 3600 * 1000));
    const posts = new Map<string, CollectedPost>();
    let skipped = 0;
    for (const term of termsOf(input)) {
      let cursor: string | undefined;
      for (let n = 0; n < (input.sample ? 1 : BLUESKY_SEARCH_PAGES); n++) {
        const page = await search.page(term, since, cursor, input.signal);
        for (const p of page.posts) {
          const post = searchedPostOf(p);
          if (post) posts.set(post.sourceId, post);
          else skipped += 1;
        }
        cursor = page.cursor;
        if (!cursor || page.posts.length === 0) break;
      }
    }
    return { posts: [...posts.values()], cursor: input.cursor ?? null, skipped };
  };

  return {
    source: "bluesky",
    configured: true,
    searchesKeywords: search.configured,
    notes: search.configured
      ? []
      : ["Search and backfill are off: a new keyword is not searched 24 h back (set EARSHOT_BLUESKY_IDENTIFIER and EARSHOT_BLUESKY_APP_PASSWORD, an app password). New posts still come from the live stream."],
    status: async () => (deps.streamDoc ? streamNotes(await deps.streamDoc(), deps.now()) : []),
    poll,
  };
};
