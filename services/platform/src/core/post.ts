import { z } from "zod";
import type { FieldError } from "../errors";
import { zodFieldErrors } from "../text/text-field";
import { SOURCES, type Source } from "./sources";

// A post as collectors emit it and import reads it (the line format the CLI's README documents): what the
// collectors of the integration service produce, what `earshot posts import` reads, and what the mention
// service checks before it matches one, so all of them hold posts to this one check. The mention service's
// paths hand the same shape here, the gRPC adapter with Dates, the post.collected consumer and the CLI
// with JSON (ISO strings). Posts come from machines, not people, so the bounds are about keeping documents
// sane (a Reddit text post is at most 40,000 characters) rather than about user input.

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

// A field left out says "is required" rather than zod's "expected string, received undefined": the reader is
// a person fixing a line of an import file.
const expected = (what: string) => ({ error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : what) });

const bounded = (max: number, min = 0) =>
  z
    .string(expected("must be a string"))
    .min(min, { message: min > 0 ? "is required" : "is too short" })
    .max(max, { message: `must be at most ${max} characters` });

const webUrl = bounded(POST_LIMITS.url, 1).refine((u) => /^https?:\/\/\S+$/i.test(u), { message: "must be an http(s) URL" });

const INSTANT = "must be an ISO 8601 date-time such as 2026-11-01T00:00:00Z";
const instant = z.union(
  [z.date().refine((d) => !Number.isNaN(d.getTime()), { message: INSTANT }), z.iso.datetime({ offset: true, message: INSTANT }).transform((s) => new Date(s))],
  expected(INSTANT),
);

const count = z.number(expected("must be a number")).int({ message: "must be a whole number" }).min(0, { message: "must not be negative" }).max(Number.MAX_SAFE_INTEGER);

export const postSchema = z.object(
  {
    projectId: bounded(64, 1),
    source: z.enum(SOURCES, expected(`must be one of ${SOURCES.join(", ")}`)),
    sourceId: bounded(POST_LIMITS.sourceId, 1),
    url: webUrl,
    title: bounded(POST_LIMITS.title).optional(),
    text: bounded(POST_LIMITS.text),
    author: z.object(
      {
        id: bounded(POST_LIMITS.authorId, 1),
        handle: bounded(POST_LIMITS.authorHandle, 1),
        name: bounded(POST_LIMITS.authorName).default(""),
        url: webUrl.optional(),
        followers: count.optional(),
      },
      expected("must be an object"),
    ),
    publishedAt: instant,
    collectedAt: instant.optional(),
    lang: bounded(POST_LIMITS.lang).optional(),
    parentId: bounded(POST_LIMITS.sourceId).optional(),
    metrics: z.object({ likes: count.default(0), replies: count.default(0), shares: count.default(0), views: count.default(0) }, expected("must be an object")).optional(),
    subreddit: bounded(POST_LIMITS.subreddit).optional(),
    channelId: bounded(POST_LIMITS.channel).optional(),
    channelHandle: bounded(POST_LIMITS.channel).optional(),
  },
  { error: "must be an object" },
);

export type Post = z.infer<typeof postSchema>;

/**
 * A post's fields as a decoder read them (an event's data, a gRPC message, an import line), not yet
 * checked: what `checkPost` takes from a typed source. The source is a word (an unknown one is refused by
 * the check, naming it), counts are numbers, times Dates or ISO strings.
 */
export interface PostFields {
  projectId: string;
  source: string;
  sourceId: string;
  url: string;
  title?: string | undefined;
  text: string;
  author?: { id: string; handle: string; name: string; url?: string | undefined; followers?: number | undefined } | undefined;
  publishedAt?: Date | string | undefined;
  collectedAt?: Date | string | undefined;
  lang?: string | undefined;
  parentId?: string | undefined;
  metrics?: { likes?: number | undefined; replies?: number | undefined; shares?: number | undefined; views?: number | undefined } | undefined;
  subreddit?: string | undefined;
  channelId?: string | undefined;
  channelHandle?: string | undefined;
}

export type PostCheck = { ok: true; post: Post & { source: Source } } | { ok: false; errors: FieldError[] };

/**
 * A post, or everything wrong with it: a post is refused as a whole, and whoever wrote it (an import file,
 * a collector) fixes every field in one go rather than one per attempt.
 */
export const checkPost = (value: unknown): PostCheck => {
  const parsed = postSchema.safeParse(value);
  if (parsed.success) return { ok: true, post: parsed.data };
  const errors = zodFieldErrors(parsed.error.issues, "post");
  return { ok: false, errors: errors.length > 0 ? errors : [{ path: "post", message: "is not a post" }] };
};
