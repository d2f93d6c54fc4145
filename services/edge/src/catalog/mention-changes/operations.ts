import { toFiltersMessage } from "@earshot/mention/filters";
import { z } from "zod";
import { defineOperation } from "../operation";
import { idFilterFields, mentionListFilterQuery } from "../shared/mention-filters";
import { idField, pageQuery, projectId, queryList } from "../shared/schemas";
import { collapseQuery } from "../shared/story-collapse";
import { mentionChangeSchema, presentMentionChange } from "./resource";

// The mention change feed (the mention service's ListMentionChanges): an agent without subscriptions keeps
// a cursor and reads what changed since, or waits for it (a long poll).

/** The longest a read may wait for a change, in seconds. */
export const MAX_WAIT_SECONDS = 30;

/** How much longer than its wait the service may take to answer a waiting read. */
const ANSWER_MS = 10_000;

export const mentionChangeOperations = [
  defineOperation({
    name: "list_mention_changes",
    title: "Follow mention changes",
    description:
      "Reads a project's change feed: the mentions created or changed after cursor, in the order the changes were committed, each once in its latest state " +
      "(a mention changed several times between two reads comes once; the states in between are not kept) with change: created or updated. " +
      "Start without cursor (every change of the retention period, by default the last 30 days; older mentions are in list_mentions) or with cursor=latest (only what changes from now on), " +
      "then pass meta.nextCursor back each time: it is always set, survives restarts of Earshot, and a reader that keeps passing it sees every change once, none skipped, none repeated. " +
      "meta.hasMore true: more is already there, read again at once. wait (seconds, 0 to 30): when nothing is new, answer as soon as a change is committed, or empty at the end of the wait " +
      "(at most 4 waiting calls per credential at once; one more is 429). viewId, keywordId, groupId, minRelevance (0 to 1) and relevance (labels) select the mentions as they are now; the cursor still moves past the others. " +
      "A cursor not issued by this project's feed is 400 naming cursor; one issued longer ago than the retention is 410 cursor_expired with oldestCursor, the oldest still served.",
    method: "GET",
    path: "/mentions/changes",
    scope: "mentions:read",
    tag: "Mentions",
    output: mentionChangeSchema,
    input: {
      query: z.object({
        projectId,
        viewId: idField("view").optional().describe("Applies a saved view of the project's filters (its id, view_…); keywordId, groupId, minRelevance or relevance given here replace the view's."),
        keywordId: queryList(idFilterFields.keywordId).optional(),
        groupId: queryList(idFilterFields.groupId).optional(),
        minRelevance: mentionListFilterQuery.minRelevance,
        relevance: mentionListFilterQuery.relevance,
        collapse: collapseQuery.describe(
          "story: only the changes of stories' first mentions, each with story.size as it is when read; a copy joining a story is not a change of its first mention, so each story comes once.",
        ),
        cursor: pageQuery.shape.cursor.describe('The meta.nextCursor of the previous read, or "latest" for only what changes from now on; without it, the oldest change still served.'),
        limit: pageQuery.shape.limit.describe("Changes per read, 1 to 100."),
        wait: z.coerce
          .number()
          .int()
          .min(0)
          .max(MAX_WAIT_SECONDS)
          .default(0)
          .describe(`Seconds to wait for a change when there is nothing new, 0 to ${MAX_WAIT_SECONDS}: the answer comes as soon as one is committed, or empty when the wait ends.`),
      }),
    },
    successStatus: 200,
    list: true,
    waitInput: "wait",
    meta: { hasMore: { type: "boolean", description: "More changes are already there after nextCursor: read again at once (without waiting)." } },
    problemStatuses: [410],
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.mention.listMentionChanges(
        {
          projectId: input.projectId,
          filters: toFiltersMessage({ keywordId: input.keywordId, groupId: input.groupId, minRelevance: input.minRelevance, relevance: input.relevance }),
          viewId: input.viewId,
          limit: input.limit,
          cursor: input.cursor ?? "",
          waitSeconds: input.wait,
          collapse: input.collapse,
        },
        // A client that goes away cancels the call, which ends the service's wait too.
        { deadlineMs: input.wait * 1000 + ANSWER_MS, ...(ctx.signal ? { signal: ctx.signal } : {}) },
      );
      return { data: res.changes.map(presentMentionChange), nextCursor: res.nextCursor, limit: input.limit, meta: { hasMore: res.hasMore } };
    },
  }),
];
