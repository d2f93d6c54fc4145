import { z } from "zod";
import { LINKEDIN_RETENTION_MS, LinkedinApi } from "../linkedin/linkedin-api";
import { type LinkedinComment, linkedinCommentSchema, type LinkedinNotification, linkedinNotificationSchema, linkedinPostSchema } from "../linkedin/linkedin-wire";
import type { CollectedPost, Collector, PollInput, PollOutcome } from "./collector";
import type { CollectorDeps } from "./collector-deps";
import { commentIdOf, mapLinkedinComment, mapLinkedinPost } from "./linkedin-map";
import { isItemRefusal, ProviderRejected } from "./provider-errors";

// LinkedIn has no keyword search: what a project gets is the notifications of its selected Page, the
// shares that mention it (SHARE_MENTION) and the comments on its posts (COMMENT), since the last one seen.
// Each notification is resolved to its post (`/posts/{urn}`) or its comment (the comments of the source
// post). The mention service then matches them against the project's keywords like any other post.
// Notifications come newest first: when a time range holds more than one poll reads (maxPages), the pass
// keeps its range and offset in the cursor and the next poll goes on from there; `since` moves to the
// newest notification only once the pass is complete, so the older ones are not lost. A post or comment
// LinkedIn refuses to show (deleted, or not visible to the Page) is skipped; the poll goes on.

export interface LinkedinCollectorOptions {
  /** Notifications asked for per call (LinkedIn's page size, at most 100; default 50). */
  pageSize?: number;
  /** Pages of notifications read per poll (default 20). */
  maxPages?: number;
  /** How far back the first poll looks (default EARSHOT_FIRST_SEARCH_LOOKBACK_HOURS, at most LinkedIn's 60 days). */
  firstPollLookbackMs?: number;
}

const MAX_SEEN = 500;
const MAX_COMMENT_PAGES = 10;

const passSchema = z.object({ startMs: z.number().int().min(0), endMs: z.number().int().min(0), offset: z.number().int().min(0), newest: z.number().int().min(0) });
const cursorSchema = z.object({ v: z.literal(1), organizationUrn: z.string(), since: z.number().int().min(0), seen: z.array(z.string()), pass: passSchema.optional() });
type LinkedinCursor = z.infer<typeof cursorSchema>;

export const createLinkedinCollector = (deps: CollectorDeps, options: LinkedinCollectorOptions = {}): Collector => {
  const api = new LinkedinApi(deps);
  const pageSize = options.pageSize ?? 50;
  const maxPages = options.maxPages ?? 20;
  const lookbackMs = options.firstPollLookbackMs ?? deps.settings.EARSHOT_FIRST_SEARCH_LOOKBACK_HOURS * 3_600_000;

  const poll = async (input: PollInput): Promise<PollOutcome> => {
    const access = input.linkedin;
    if (!access) throw new ProviderRejected("linkedin", 0, "no LinkedIn Page selected");
    const { accessToken, organizationUrn } = access;
    const nowMs = input.now.getTime();
    const stored = cursorSchema.safeParse(input.cursor);
    // Another Page selected since: its history starts over.
    const cursor: LinkedinCursor | undefined = stored.success && stored.data.organizationUrn === organizationUrn ? stored.data : undefined;
    const pass = cursor?.pass;
    // LinkedIn keeps 60 days of notifications and refuses to look further back (a minute's margin for clocks).
    const startMs = Math.max(pass?.startMs ?? cursor?.since ?? nowMs - lookbackMs, nowMs - LINKEDIN_RETENTION_MS + 60_000);
    const endMs = pass?.endMs ?? nowMs + 1;
    const seen = new Set(cursor?.seen ?? []);
    let skipped = 0;
    const skip = (what: string, detail: unknown) => {
      skipped += 1;
      deps.logger.warn({ source: "linkedin", projectId: input.projectId, detail }, `linkedin: skipped ${what}`);
    };

    const notifications: LinkedinNotification[] = [];
    let offset = pass?.offset ?? 0;
    let complete = false;
    for (let page = 0; page < maxPages && !complete; page++) {
      const list = await api.notifications({ accessToken, organizationUrn, startMs, endMs, start: offset, count: pageSize, signal: input.signal });
      for (const raw of list.elements) {
        const n = linkedinNotificationSchema.safeParse(raw);
        if (n.success) notifications.push(n.data);
        else skip("a malformed notification", n.error.issues[0]);
      }
      offset += list.elements.length;
      complete = list.elements.length < pageSize || (list.paging?.total !== undefined && offset >= list.paging.total);
    }

    const commentsByPost = new Map<string, LinkedinComment[]>();
    const refusedPosts = new Map<string, ProviderRejected>();
    const commentsOf = async (postUrn: string): Promise<LinkedinComment[]> => {
      const known = commentsByPost.get(postUrn);
      if (known) return known;
      // A post whose comments were refused once is not asked again for its other comments this poll.
      const refused = refusedPosts.get(postUrn);
      if (refused) throw refused;
      const out: LinkedinComment[] = [];
      for (let page = 0, start = 0; page < MAX_COMMENT_PAGES; page++) {
        let list;
        try {
          list = await api.comments(accessToken, postUrn, start, 100, input.signal);
        } catch (err) {
          if (isItemRefusal(err)) refusedPosts.set(postUrn, err);
          throw err;
        }
        for (const raw of list.elements) {
          const c = linkedinCommentSchema.safeParse(raw);
          if (c.success) out.push(c.data);
          else skip("a malformed comment", c.error.issues[0]);
        }
        start += list.elements.length;
        if (list.elements.length < 100 || (list.paging?.total !== undefined && start >= list.paging.total)) break;
      }
      commentsByPost.set(postUrn, out);
      return out;
    };

    const posts: CollectedPost[] = [];
    const since = cursor?.since ?? startMs;
    let newest = pass?.newest ?? since;
    for (const n of notifications.sort((a, b) => a.lastModifiedAt - b.lastModifiedAt)) {
      newest = Math.max(newest, n.lastModifiedAt);
      const activity = n.generatedActivity ?? n.sourcePost;
      if (seen.has(activity)) continue;
      try {
        if (n.action === "SHARE_MENTION") {
          const post = linkedinPostSchema.safeParse(await api.post(accessToken, activity, input.signal));
          if (!post.success) skip("a malformed post", post.error.issues[0]);
          else posts.push(mapLinkedinPost(post.data, n.lastModifiedAt));
        } else {
          const id = commentIdOf(activity);
          const comment = (await commentsOf(n.sourcePost)).find((c) => c.commentUrn === activity || (id !== undefined && c.id === id));
          if (!comment) skip("a comment no longer listed", activity);
          else posts.push(mapLinkedinComment(comment, activity, n.sourcePost));
        }
      } catch (err) {
        // A post deleted since it was notified, or one the Page may not see, is that item's fate, not the source's.
        if (isItemRefusal(err)) skip(`an activity LinkedIn refused (${err.status})`, activity);
        else throw err;
      }
      seen.add(activity);
    }

    const next: LinkedinCursor = complete
      ? { v: 1, organizationUrn, since: newest, seen: [...seen].slice(-MAX_SEEN) }
      : { v: 1, organizationUrn, since, seen: [...seen].slice(-MAX_SEEN), pass: { startMs, endMs, offset, newest } };
    return { posts, cursor: next, skipped };
  };

  return {
    source: "linkedin",
    // Each project brings its own member token; the application's client credentials make connecting possible.
    configured: api.configured,
    // Keywords do not change what is read: every notification of the Page is collected and matched.
    searchesKeywords: false,
    poll,
  };
};
