import type { CollectedPost } from "./collector";
import { isRecordValue as isRecord } from "./query-cursor";

// An Algolia HN Search hit as a Post. Comments carry HTML (comment_text) and no title of their own: the
// post's title is its story's, so a reader sees what the comment is about.

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** HN's comment HTML as plain text: paragraphs kept as blank lines, tags dropped, entities decoded. */
export const hnText = (html: string): string =>
  html
    .replace(/<p>/gi, "\n\n")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
      if (e[0] === "#") {
        const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
      }
      return ENTITIES[e.toLowerCase()] ?? all;
    })
    .trim();

const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

export const hnPostOf = (hit: unknown): CollectedPost | null => {
  if (!isRecord(hit)) return null;
  const id = str(hit.objectID);
  const created = hit.created_at_i;
  const author = str(hit.author);
  if (!id || !/^\d{1,19}$/.test(id) || typeof created !== "number" || !Number.isFinite(created) || !author) return null;
  const tags = Array.isArray(hit._tags) ? hit._tags : [];
  const isComment = tags.includes("comment");
  const title = isComment ? str(hit.story_title) : str(hit.title);
  const body = isComment ? str(hit.comment_text) : (str(hit.story_text) ?? str(hit.url) ?? "");
  const text = hnText(body ?? "") || title || "";
  if (!text) return null;
  const storyId = hit.story_id;
  return {
    source: "hackernews",
    sourceId: id,
    url: `https://news.ycombinator.com/item?id=${id}`,
    ...(title ? { title } : {}),
    text,
    author: { id: author, handle: author, name: author, url: `https://news.ycombinator.com/user?id=${encodeURIComponent(author)}` },
    publishedAt: new Date(created * 1000).toISOString(),
    ...(isComment && typeof storyId === "number" ? { parentId: String(storyId) } : {}),
  };
};
