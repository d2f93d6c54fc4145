import { z } from "zod";
import type { FieldError } from "../errors";
import { zodFieldErrors } from "../text/text-field";
import { SOURCES, type Source } from "./sources";

// A post as collectors emit it and import reads it (DESIGN.md "Post"): what the collectors of the
// integration service produce and what the mention service checks before it matches one, so both hold
// posts to this one check (the collectors' tests, and ingestion). The mention service's paths hand the
// same shape here, the gRPC adapter with Dates, the post.collected consumer with the event's data (ISO
// strings). Posts come from machines, not people, so the bounds are about keeping documents sane (a
// Reddit text post is at most 40,000 characters) rather than about user input.

export const POST_LIMITS = {
  sourceId: 200,
  url: 2048,
  title: 1_000,
  text: 50_000,
  authorId: 200,
  authorHandle: 200,
  authorName: 500,
  lang: 35,
  subreddit: 100,
  channel: 200,
} as const;

const bounded = (max: number, min = 0) =>
  z
    .string()
    .min(min, { message: min > 0 ? "is required" : "is too short" })
    .max(max, { message: `must be at most ${max} characters` });

const webUrl = bounded(POST_LIMITS.url, 1).refine((u) => /^https?:\/\/\S+$/i.test(u), { message: "must be an http(s) URL" });

const INSTANT = "must be an ISO 8601 date-time such as 2026-11-01T00:00:00Z";
const instant = z.union(
  [z.date().refine((d) => !Number.isNaN(d.getTime()), { message: INSTANT }), z.iso.datetime({ offset: true, message: INSTANT }).transform((s) => new Date(s))],
  { message: INSTANT },
);

const count = z.number().int({ message: "must be a whole number" }).min(0, { message: "must not be negative" }).max(Number.MAX_SAFE_INTEGER);

export const postSchema = z.object({
  projectId: bounded(64, 1),
  source: z.enum(SOURCES, { message: `must be one of ${SOURCES.join(", ")}` }),
  sourceId: bounded(POST_LIMITS.sourceId, 1),
  url: webUrl,
  title: bounded(POST_LIMITS.title).optional(),
  text: bounded(POST_LIMITS.text),
  author: z.object({
    id: bounded(POST_LIMITS.authorId, 1),
    handle: bounded(POST_LIMITS.authorHandle, 1),
    name: bounded(POST_LIMITS.authorName).default(""),
    url: webUrl.optional(),
    followers: count.optional(),
  }),
  publishedAt: instant,
  collectedAt: instant.optional(),
  lang: bounded(POST_LIMITS.lang).optional(),
  parentId: bounded(POST_LIMITS.sourceId).optional(),
  metrics: z.object({ likes: count.default(0), replies: count.default(0), shares: count.default(0), views: count.default(0) }).optional(),
  subreddit: bounded(POST_LIMITS.subreddit).optional(),
  channelId: bounded(POST_LIMITS.channel).optional(),
  channelHandle: bounded(POST_LIMITS.channel).optional(),
});

export type Post = z.infer<typeof postSchema>;

export type PostCheck = { ok: true; post: Post & { source: Source } } | { ok: false; error: FieldError };

/** A post, or the first thing wrong with it (a post is refused as a whole; one reason is enough to fix it). */
export const checkPost = (value: unknown): PostCheck => {
  const parsed = postSchema.safeParse(value);
  if (parsed.success) return { ok: true, post: parsed.data };
  const [error] = zodFieldErrors(parsed.error.issues, "post");
  return { ok: false, error: error ?? { path: "post", message: "is not a post" } };
};
