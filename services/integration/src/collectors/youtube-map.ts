import { z } from "zod";
import type { CollectedPost } from "./collector";

// YouTube's answers as the collector reads them (reference/protocols.md), and their mapping to Posts.
// search.list sends titles and descriptions HTML-escaped (`&#39;`, `&amp;`); they are unescaped here.

const instant = z.iso.datetime({ offset: true });

export const youtubeSearchItemSchema = z.object({
  id: z.object({ videoId: z.string().regex(/^[A-Za-z0-9_-]{6,64}$/) }),
  snippet: z.object({ publishedAt: instant, channelId: z.string().min(1), title: z.string(), description: z.string(), channelTitle: z.string() }),
});
export type YoutubeSearchItem = z.infer<typeof youtubeSearchItemSchema>;

export const youtubeListSchema = z.object({ nextPageToken: z.string().optional(), items: z.array(z.unknown()) });

const countString = z.union([z.string().regex(/^\d+$/), z.number().int().min(0)]).transform(Number);
export const youtubeVideoStatsSchema = z.object({
  id: z.string(),
  statistics: z.object({ viewCount: countString.optional(), likeCount: countString.optional(), commentCount: countString.optional() }),
});

export const youtubeThreadSchema = z.object({
  id: z.string().min(1),
  snippet: z.object({
    videoId: z.string().min(1),
    channelId: z.string().optional(),
    totalReplyCount: z.number().int().min(0).optional(),
    topLevelComment: z.object({
      id: z.string().min(1),
      snippet: z.object({
        authorDisplayName: z.string(),
        authorChannelId: z.object({ value: z.string().min(1) }).optional(),
        textOriginal: z.string(),
        likeCount: z.number().int().min(0).optional(),
        publishedAt: instant,
      }),
    }),
  }),
});
export type YoutubeThread = z.infer<typeof youtubeThreadSchema>;

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

export const unescapeHtml = (s: string): string =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });

const canonicalInstant = (s: string) => new Date(s).toISOString();

export const videoUrl = (videoId: string) => `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}`;

export const mapYoutubeVideo = (item: YoutubeSearchItem, stats?: { views?: number; likes?: number; comments?: number }): CollectedPost => {
  const channelTitle = unescapeHtml(item.snippet.channelTitle);
  return {
    source: "youtube",
    sourceId: item.id.videoId,
    url: videoUrl(item.id.videoId),
    title: unescapeHtml(item.snippet.title),
    text: unescapeHtml(item.snippet.description),
    author: { id: item.snippet.channelId, handle: channelTitle || item.snippet.channelId, name: channelTitle, url: `https://www.youtube.com/channel/${encodeURIComponent(item.snippet.channelId)}` },
    publishedAt: canonicalInstant(item.snippet.publishedAt),
    channelId: item.snippet.channelId,
    ...(channelTitle ? { channelHandle: channelTitle } : {}),
    ...(stats ? { metrics: { likes: stats.likes ?? 0, replies: stats.comments ?? 0, shares: 0, views: stats.views ?? 0 } } : {}),
  };
};

export const mapYoutubeComment = (thread: YoutubeThread): CollectedPost => {
  const c = thread.snippet.topLevelComment;
  const videoId = thread.snippet.videoId;
  const authorId = c.snippet.authorChannelId?.value ?? c.snippet.authorDisplayName;
  return {
    source: "youtube",
    sourceId: c.id,
    url: `${videoUrl(videoId)}&lc=${encodeURIComponent(c.id)}`,
    text: c.snippet.textOriginal,
    author: {
      id: authorId || "unknown",
      handle: c.snippet.authorDisplayName || authorId || "unknown",
      name: c.snippet.authorDisplayName,
      ...(c.snippet.authorChannelId ? { url: `https://www.youtube.com/channel/${encodeURIComponent(c.snippet.authorChannelId.value)}` } : {}),
    },
    publishedAt: canonicalInstant(c.snippet.publishedAt),
    parentId: videoId,
    ...(thread.snippet.channelId ? { channelId: thread.snippet.channelId } : {}),
    metrics: { likes: c.snippet.likeCount ?? 0, replies: thread.snippet.totalReplyCount ?? 0, shares: 0, views: 0 },
  };
};
