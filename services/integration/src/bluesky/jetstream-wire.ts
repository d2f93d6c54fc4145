import { z } from "zod";
import type { CollectedPost } from "../collectors/collector";

// Jetstream's JSON frames (https://github.com/bluesky-social/jetstream): every frame carries the repo's DID,
// `kind` and `time_us`; only `commit` frames creating an app.bsky.feed.post are posts. Identity and account
// frames still move the cursor, so a restart never replays them.

export const POST_COLLECTION = "app.bsky.feed.post";

const frame = z.object({
  did: z.string().min(1),
  time_us: z.number().int().nonnegative(),
  kind: z.string(),
  commit: z
    .object({
      operation: z.string(),
      collection: z.string(),
      rkey: z.string().min(1),
      cid: z.string().optional(),
      record: z
        .object({
          text: z.string().default(""),
          createdAt: z.string().optional(),
          langs: z.array(z.string()).optional(),
          reply: z.object({ parent: z.object({ uri: z.string() }).optional() }).optional(),
        })
        .loose()
        .optional(),
    })
    .optional(),
});

export interface JetstreamFrame {
  timeUs: number;
  /** Present when the frame creates a post. */
  post?: CollectedPost;
}

/** Reads one frame; undefined when it is not Jetstream's shape (the caller counts it as skipped). */
export function readJetstreamFrame(raw: string): JetstreamFrame | undefined {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = frame.safeParse(json);
  if (!parsed.success) return undefined;
  const f = parsed.data;
  const c = f.commit;
  if (f.kind !== "commit" || !c || c.operation !== "create" || c.collection !== POST_COLLECTION || !c.record) {
    return { timeUs: f.time_us };
  }
  return { timeUs: f.time_us, post: toPost(f.did, c.rkey, f.time_us, c.record) };
}

function toPost(
  did: string,
  rkey: string,
  timeUs: number,
  record: { text: string; createdAt?: string; langs?: string[]; reply?: { parent?: { uri: string } } },
): CollectedPost {
  // A post's createdAt is whatever the client wrote (it can be absent, malformed or far off); the relay's
  // time_us is when the network saw it, so it stands in when createdAt cannot be read.
  const created = record.createdAt ? Date.parse(record.createdAt) : Number.NaN;
  const publishedAt = new Date(Number.isFinite(created) ? created : Math.floor(timeUs / 1000)).toISOString();
  // Jetstream names the author by DID only; the DID is a permanent identifier and bsky.app resolves a
  // profile link by it, so the handle stays the DID until a profile lookup fills it in.
  const post: CollectedPost = {
    source: "bluesky",
    sourceId: `at://${did}/${POST_COLLECTION}/${rkey}`,
    url: `https://bsky.app/profile/${did}/post/${rkey}`,
    text: record.text,
    author: { id: did, handle: did, name: did, url: `https://bsky.app/profile/${did}` },
    publishedAt,
  };
  if (record.langs?.[0]) post.lang = record.langs[0];
  if (record.reply?.parent?.uri) post.parentId = record.reply.parent.uri;
  return post;
}
