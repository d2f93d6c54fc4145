import type { CollectedPost } from "./collector";
import { isRecordValue as isRecord } from "./query-cursor";

// X API v2 tweets (with `expansions=author_id`) to Posts. An item the collector cannot read (no id, no
// text, no date) is skipped and counted rather than failing the page around it.

export interface XUser {
  id: string;
  name: string;
  username: string;
}

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

/** The users of `includes.users` by id (unreadable entries left out). */
export const xUsersOf = (includes: unknown): Map<string, XUser> => {
  const users = new Map<string, XUser>();
  const list = isRecord(includes) && Array.isArray(includes.users) ? includes.users : [];
  for (const u of list) {
    if (isRecord(u) && typeof u.id === "string" && typeof u.username === "string" && u.username) users.set(u.id, { id: u.id, username: u.username, name: typeof u.name === "string" ? u.name : u.username });
  }
  return users;
};

export const xPostOf = (tweet: unknown, users: Map<string, XUser>): CollectedPost | undefined => {
  if (!isRecord(tweet)) return undefined;
  const { id, text, author_id: authorId, created_at: createdAt, lang } = tweet;
  if (typeof id !== "string" || !/^\d{1,19}$/.test(id) || typeof text !== "string" || typeof authorId !== "string" || !authorId) return undefined;
  const published = typeof createdAt === "string" ? Date.parse(createdAt) : Number.NaN;
  if (Number.isNaN(published)) return undefined;
  const m = isRecord(tweet.public_metrics) ? tweet.public_metrics : {};
  const user = users.get(authorId);
  // Without its user the post is still a mention: X resolves these links by id alone.
  const handle = user?.username ?? authorId;
  return {
    source: "x",
    sourceId: id,
    url: user ? `https://x.com/${user.username}/status/${id}` : `https://x.com/i/web/status/${id}`,
    text,
    author: { id: authorId, handle, name: user?.name ?? handle, url: user ? `https://x.com/${user.username}` : `https://x.com/i/user/${authorId}` },
    publishedAt: new Date(published).toISOString(),
    ...(typeof lang === "string" && lang ? { lang } : {}),
    metrics: { likes: count(m.like_count), replies: count(m.reply_count), shares: count(m.retweet_count) + count(m.quote_count), views: count(m.impression_count) },
  };
};
