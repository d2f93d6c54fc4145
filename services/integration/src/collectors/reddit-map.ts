import type { CollectedPost } from "./collector";
import { isRecordValue as isRecord } from "./query-cursor";

// Reddit listing children (t3 links, t1 comments) to Posts. Listings carry the author's name and, when
// the account still exists, its `author_fullname` (t2_...), which is the stable id. Scores can be
// negative on Reddit; a Post's metrics cannot, so they floor at 0. Unreadable children are skipped.

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const FULLNAME = /^t[13]_[0-9a-z]{1,13}$/;

export interface RedditItem {
  post: CollectedPost;
  /** The item's id as a number, for telling what a previous poll already saw. */
  order: bigint;
  createdMs: number;
}

export const idOrder = (fullname: string): bigint => {
  let n = 0n;
  for (const c of fullname.slice(3)) n = n * 36n + BigInt(Number.parseInt(c, 36));
  return n;
};

const authorOf = (d: Record<string, unknown>) => {
  const name = typeof d.author === "string" && d.author ? d.author : "[deleted]";
  const id = typeof d.author_fullname === "string" && d.author_fullname ? d.author_fullname : name;
  return { id, handle: name, name, ...(name !== "[deleted]" ? { url: `https://www.reddit.com/user/${encodeURIComponent(name)}` } : {}) };
};

export const redditItemOf = (child: unknown): RedditItem | undefined => {
  if (!isRecord(child) || !isRecord(child.data) || (child.kind !== "t3" && child.kind !== "t1")) return undefined;
  const d = child.data;
  const name = typeof d.name === "string" ? d.name : typeof d.id === "string" ? `${child.kind}_${d.id}` : undefined;
  if (!name || !FULLNAME.test(name) || !name.startsWith(child.kind) || typeof d.id !== "string") return undefined;
  if (typeof d.permalink !== "string" || !d.permalink.startsWith("/") || typeof d.created_utc !== "number" || !Number.isFinite(d.created_utc)) return undefined;
  const createdMs = Math.round(d.created_utc * 1000);
  const base = {
    source: "reddit" as const,
    sourceId: name,
    url: `https://www.reddit.com${d.permalink}`,
    author: authorOf(d),
    publishedAt: new Date(createdMs).toISOString(),
    ...(typeof d.subreddit === "string" && d.subreddit ? { subreddit: d.subreddit } : {}),
  };
  if (child.kind === "t3") {
    if (typeof d.title !== "string") return undefined;
    const text = typeof d.selftext === "string" ? d.selftext : "";
    return { post: { ...base, title: d.title, text, metrics: { likes: count(d.score), replies: count(d.num_comments), shares: 0, views: 0 } }, order: idOrder(name), createdMs };
  }
  if (typeof d.body !== "string") return undefined;
  const parent = typeof d.link_id === "string" && FULLNAME.test(d.link_id) ? { parentId: d.link_id } : {};
  return { post: { ...base, text: d.body, ...parent, metrics: { likes: count(d.score), replies: 0, shares: 0, views: 0 } }, order: idOrder(name), createdMs };
};
