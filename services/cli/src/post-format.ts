import { POST_LIMITS } from "@earshot/platform/core";

// The line format of `earshot posts import`, as `--help` shows it. The limits come from the mention
// service's post check, which every line is held to, so the help cannot promise more than it takes; a
// test keeps this list and the README's table to the check's fields.

export interface PostFieldDoc {
  /** The field's path in a line (`author.id`). */
  path: string;
  required: boolean;
  about: string;
}

const chars = (n: number) => `up to ${n.toLocaleString("en-US")} characters`;
const INSTANT = "ISO 8601 date-time with seconds and a zone (2026-11-20T09:00:00Z, 2026-11-20T10:00:00+01:00)";
const COUNT = "a whole number, at least 0 (default 0)";

export const POST_FIELDS: readonly PostFieldDoc[] = [
  { path: "source", required: true, about: "x, reddit, youtube, linkedin, hackernews, bluesky, rss or github" },
  { path: "sourceId", required: true, about: `the post's id on its source, ${chars(POST_LIMITS.sourceId)}; a post already imported or collected for the project is a duplicate` },
  { path: "url", required: true, about: `the post's http(s) link, ${chars(POST_LIMITS.url)}` },
  { path: "text", required: true, about: `the body, ${chars(POST_LIMITS.text)}; may be "" (a post that is only a title)` },
  { path: "title", required: false, about: `Reddit posts and YouTube videos, ${chars(POST_LIMITS.title)}` },
  { path: "author", required: true, about: "an object:" },
  { path: "author.id", required: true, about: `the author's stable id on the source, ${chars(POST_LIMITS.authorId)}` },
  { path: "author.handle", required: true, about: `the author's handle; the author filter of list_mentions matches it (without a leading @, any case) or author.id, ${chars(POST_LIMITS.authorHandle)}` },
  { path: "author.name", required: false, about: `display name, ${chars(POST_LIMITS.authorName)} (default "")` },
  { path: "author.url", required: false, about: "the author's http(s) profile link" },
  { path: "author.followers", required: false, about: "a whole number, at least 0" },
  { path: "publishedAt", required: true, about: INSTANT },
  { path: "collectedAt", required: false, about: "same form (default: the time of the import)" },
  { path: "lang", required: false, about: `language tag such as en or pt-BR, ${chars(POST_LIMITS.lang)}` },
  { path: "parentId", required: false, about: `sourceId of the post this one answers (a comment's post, a reply's tweet), ${chars(POST_LIMITS.sourceId)}` },
  { path: "metrics", required: false, about: "an object:" },
  { path: "metrics.likes", required: false, about: COUNT },
  { path: "metrics.replies", required: false, about: COUNT },
  { path: "metrics.shares", required: false, about: COUNT },
  { path: "metrics.views", required: false, about: COUNT },
  { path: "subreddit", required: false, about: `Reddit: the subreddit without r/, ${chars(POST_LIMITS.subreddit)}` },
  { path: "channelId", required: false, about: `YouTube: the channel's id, ${chars(POST_LIMITS.channel)}` },
  { path: "channelHandle", required: false, about: `YouTube: the channel's handle or title, ${chars(POST_LIMITS.channel)}` },
  { path: "projectId", required: false, about: "ignored: the posts go to --project" },
];

/** One line per source, as the README shows them too (a test checks both against the post check). */
export const EXAMPLE_LINES: readonly string[] = [
  JSON.stringify({
    source: "x",
    sourceId: "1858000000000000001",
    url: "https://x.com/ana/status/1858000000000000001",
    text: "Trying Acme's new release today",
    author: { id: "2244", handle: "ana", name: "Ana", followers: 120 },
    publishedAt: "2026-11-20T09:00:00Z",
    lang: "en",
    metrics: { likes: 3, replies: 0, shares: 1, views: 40 },
  }),
  JSON.stringify({
    source: "reddit",
    sourceId: "t3_1abcde",
    url: "https://www.reddit.com/r/selfhosted/comments/1abcde/acme_vs_globex/",
    title: "Acme vs Globex?",
    text: "Which one do you run?",
    author: { id: "t2_9xyz", handle: "bob", url: "https://www.reddit.com/user/bob" },
    publishedAt: "2026-11-20T10:15:00+01:00",
    subreddit: "selfhosted",
    metrics: { likes: 12, replies: 4 },
  }),
  JSON.stringify({
    source: "youtube",
    sourceId: "dQw4w9WgXcQ",
    url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    title: "Acme in 5 minutes",
    text: "A quick tour of Acme.",
    author: { id: "UCabc123", handle: "@acmefans", name: "Acme Fans" },
    publishedAt: "2026-11-19T18:30:00Z",
    channelId: "UCabc123",
    channelHandle: "@acmefans",
    metrics: { likes: 80, replies: 9, views: 1500 },
  }),
  JSON.stringify({
    source: "linkedin",
    sourceId: "urn:li:share:7100000000000000001",
    url: "https://www.linkedin.com/feed/update/urn:li:share:7100000000000000001/",
    text: "We moved our monitoring to Acme this quarter.",
    author: { id: "urn:li:person:AbC123", handle: "AbC123" },
    publishedAt: "2026-11-18T07:45:00Z",
  }),
];

export const postFormatHelp = (): string[] => [
  "Line format: one JSON object per line (blank lines are skipped, null is the same as leaving a field",
  "out, other fields are ignored). A bad line is reported with every problem it has, and the rest are",
  "imported. Fields:",
  ...POST_FIELDS.map((f) => `  ${f.path.padEnd(18)} ${(f.required ? "required" : "").padEnd(10)}${f.about}`),
  "",
  "Examples, one line per source:",
  ...EXAMPLE_LINES,
];
