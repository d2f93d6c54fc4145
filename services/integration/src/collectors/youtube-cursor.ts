import { z } from "zod";

// What a YouTube poll remembers between polls (stored by the poller as JSON):
// - per search query: `after`, the publishedAfter of its next search (the newest video seen), and while
//   a search's pages are being read across polls, the `pageToken` to continue from and the `newest`
//   video seen so far (`after` moves to it once the last page is read);
// - `watch`: the newest videos found, whose comments each poll reads, with the newest comment seen
//   (`commentsAfter`) and, while a video's new comments take more pages than one poll reads, the
//   `commentsPageToken` to continue from and the newest comment of that pass (`commentsNewest`);
// - `seen`: ids emitted lately. publishedAfter is inclusive, so the videos at the boundary come back.

export const MAX_SEEN = 1_000;

const queryState = z.object({ after: z.string(), pageToken: z.string().optional(), newest: z.string().optional() });
const watched = z.object({
  videoId: z.string(),
  publishedAt: z.string(),
  term: z.string(),
  commentsAfter: z.string().optional(),
  commentsPageToken: z.string().optional(),
  commentsNewest: z.string().optional(),
});

export const youtubeCursorSchema = z.object({
  v: z.literal(1),
  queries: z.record(z.string(), queryState),
  watch: z.array(watched),
  seen: z.array(z.string()),
});
export type YoutubeCursor = z.infer<typeof youtubeCursorSchema>;
export type YoutubeQueryState = z.infer<typeof queryState>;
export type YoutubeWatched = z.infer<typeof watched>;

/** The cursor a poll resumes from; one it cannot read starts over (the poller's recent ids still hold). */
export const readYoutubeCursor = (value: unknown): YoutubeCursor => {
  const parsed = youtubeCursorSchema.safeParse(value);
  return parsed.success ? parsed.data : { v: 1, queries: {}, watch: [], seen: [] };
};

export const laterOf = (a: string | undefined, b: string): string => (a && Date.parse(a) >= Date.parse(b) ? a : b);
