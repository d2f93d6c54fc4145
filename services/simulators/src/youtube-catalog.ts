import { generatedText } from "./text";
import { youtubeChannelIdOf, youtubeVideoId, youtubeVideoKey } from "./youtube-ids";
import { normalizeTerm, type SimPost, type SimWorld } from "./world";

// What the YouTube simulator knows beyond the world's searches: the videos it has answered with (so
// videos.list and commentThreads.list find them by id, as YouTube finds any video), and the comments of
// each video: the published ones (kind "comment", parentKey = the video's key) and, for generated videos,
// a couple of generated comments that contain the term the video was found for.

const MAX_REMEMBERED = 20_000;
const GENERATED_COMMENTS = 2;

export interface YoutubeVideo {
  post: SimPost;
  /** The searched phrase the video contains (generated comments repeat it). */
  term?: string;
}

const fnv = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
};

export const channelOf = (post: SimPost): { channelId: string; channelTitle: string } => ({
  channelId: post.channelId ?? youtubeChannelIdOf(post.author.id),
  channelTitle: post.channelTitle ?? post.author.name,
});

export class YoutubeCatalog {
  private readonly videos = new Map<string, YoutubeVideo>();

  constructor(private readonly world: SimWorld) {}

  remember(post: SimPost, searched: string[]): void {
    const id = youtubeVideoId(post.key);
    if (this.videos.has(id)) return;
    const hay = normalizeTerm(`${post.title ?? ""} ${post.text}`);
    const term = searched.find((t) => hay.includes(normalizeTerm(t)));
    this.videos.set(id, { post, ...(term ? { term } : {}) });
    if (this.videos.size > MAX_REMEMBERED) {
      const oldest = this.videos.keys().next().value;
      if (oldest !== undefined) this.videos.delete(oldest);
    }
  }

  /**
   * A video by id: one answered before, a published one, or a generated one answered before these
   * simulators started (Earshot watches the comments of videos it found before a restart, and YouTube
   * still has them): found again for the term it was generated for, among the terms searched so far and
   * `term` (the request's searchTerms).
   */
  video(id: string, term?: string): YoutubeVideo | undefined {
    const known = this.videos.get(id);
    if (known) return known;
    const [published] = this.world.posts("youtube", (p) => p.kind === "post" && youtubeVideoId(p.key) === id);
    if (published) return { post: published };
    const key = youtubeVideoKey(id);
    const post = key === undefined ? undefined : this.world.generatedByKey("youtube", key, [...(term ? [term] : []), ...this.world.searchedTerms()], { kind: "post" });
    if (!post) return undefined;
    this.remember(post, [...(term ? [term] : []), ...this.world.searchedTerms()]);
    return this.videos.get(id);
  }

  /** Videos of a channel that are known here. */
  videosOfChannel(channelId: string): YoutubeVideo[] {
    const known = [...this.videos.values()].filter((v) => channelOf(v.post).channelId === channelId);
    const published = this.world.posts("youtube", (p) => p.kind === "post" && channelOf(p).channelId === channelId && !this.videos.has(youtubeVideoId(p.key)));
    return [...known, ...published.map((post) => ({ post }))];
  }

  /** The comments of a video that exist now, newest first. */
  comments(video: YoutubeVideo): SimPost[] {
    const key = String(video.post.key);
    const published = this.world.posts("youtube", (p) => p.kind === "comment" && p.parentKey !== undefined && String(p.parentKey) === key);
    const generated = this.isPublished(video.post) || !this.world.generate ? [] : this.generatedComments(video);
    const now = this.world.now();
    return [...published, ...generated.filter((c) => c.createdAtMs <= now)].sort((a, b) => (a.key > b.key ? -1 : a.key < b.key ? 1 : 0));
  }

  private isPublished(post: SimPost): boolean {
    return this.world.posts("youtube", (p) => p.key === post.key).length > 0;
  }

  private generatedComments(video: YoutubeVideo): SimPost[] {
    const term = video.term ?? video.post.title ?? "this video";
    const out: SimPost[] = [];
    for (let i = 0; i < GENERATED_COMMENTS; i++) {
      const h = fnv(`${this.world.seed}:ytc:${video.post.key}:${i}`);
      const createdAtMs = video.post.createdAtMs + Math.floor(((i + 1) * this.world.generateEveryMs) / (GENERATED_COMMENTS + 1));
      const n = h % 89;
      out.push({
        platform: "youtube",
        key: this.world.keyAt(createdAtMs, h & 0x1fffff),
        createdAtMs,
        kind: "comment",
        parentKey: video.post.key,
        text: generatedText(term, h >>> 3).text,
        lang: video.post.lang,
        author: { id: `${200000 + n}`, handle: `sim_viewer_${n}`, name: `Simulated viewer ${n}`, followers: 0 },
        likes: h % 40,
        replies: (h >>> 5) % 4,
        shares: 0,
        views: 0,
      });
    }
    return out;
  }
}
