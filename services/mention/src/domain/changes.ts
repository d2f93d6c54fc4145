import { DomainError, pageLimit, validationFailed } from "@earshot/platform/core";
import type { ChangeSequenceDoc, MentionDoc } from "../store";
import { accessProject } from "./access";
import { type ChangeCursor, decodeChangeCursor, encodeChangeCursor, LATEST } from "./change-cursor";
import { oldestServedSeq } from "./change-sequence";
import type { Caller, MentionDeps } from "./deps";
import { checkFilters, loadViewFilters, mentionQuery, mergeFilters } from "./filters";
import { required } from "./input";
import { type MentionSummary, summaryOf } from "./mentions";
import { collapseFilter, collapseOf } from "./stories/collapse";
import { withStorySizes } from "./stories/story-sizes";

// A project's change feed, CouchDB's `_changes` over mentions: the mentions whose latest change is after
// the reader's cursor, in commit order (the project's change sequence, change-sequence.ts), each once in its
// latest state: a mention changed several times between two reads comes once, its intermediate states
// coalesced. A reader that keeps passing nextCursor sees every change once: nothing numbered after its
// cursor is hidden from it (numbers commit in order), and nothing before it comes again unless it changes
// again. With filters (a view, keywords, groups) the mentions are selected as they are now, and the cursor
// still moves past what was read, so a quiet filter costs nothing the next time.

/** The longest a read may wait for a change (seconds). */
export const MAX_WAIT_SECONDS = 30;

export type ChangeKind = "created" | "updated";

export interface MentionChange {
  mention: MentionSummary;
  /** `created` when the mention was stored after the cursor (it may have changed since), else `updated`. */
  change: ChangeKind;
  seq: number;
}

export interface ChangesPage {
  changes: MentionChange[];
  /** Always set: the position after what this read covered. */
  nextCursor: string;
  /** More changes are committed already after nextCursor: read again at once. */
  hasMore: boolean;
}

export interface ChangesInput {
  projectId: string;
  /** The list filters (the API offers keywordId, groupId, minRelevance and relevance). */
  filters?: unknown;
  viewId?: string;
  limit?: number;
  /** A nextCursor, `latest`, or none: the oldest change still served. */
  cursor?: string;
  /** 0..30: with nothing after the cursor, how long to wait for a change to commit. */
  waitSeconds?: number;
  /** Ends a wait early (the caller went away). */
  signal?: AbortSignal;
  /**
   * `story`: only stories' first mentions (stories/collapse.ts), each with its story's size as it is when
   * read. A story growing is not a change of its first mention: a collapsed reader meets each story once
   * when it starts (and again when that mention is triaged), never once per copy.
   */
  collapse?: string;
}

const DAY_MS = 86_400_000;

const checkWait = (wait: number | undefined): number => {
  const seconds = wait ?? 0;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_WAIT_SECONDS) {
    throw validationFailed([{ path: "wait", message: `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}` }]);
  }
  return seconds;
};

/** Where the reader starts, checked: a cursor past the retention is 410 with the oldest one still served. */
const startOf = (deps: MentionDeps, projectId: string, cursor: string | undefined, sequence: ChangeSequenceDoc | null): number => {
  const now = deps.clock.now();
  const horizon = new Date(now.getTime() - deps.changeFeed.retentionDays * DAY_MS);
  const head = sequence?.seq ?? 0;
  if (cursor === LATEST) return head;
  if (!cursor) return oldestServedSeq(sequence, horizon);
  const at: ChangeCursor = decodeChangeCursor(cursor, projectId);
  if (at.seq > head) throw validationFailed([{ path: "cursor", message: "is ahead of this project's changes: it is not one this change feed returned" }]);
  if (at.issuedAt < horizon) {
    const oldestCursor = encodeChangeCursor({ projectId, seq: oldestServedSeq(sequence, horizon), issuedAt: now });
    throw new DomainError(
      "cursor_expired",
      `This cursor was issued more than ${deps.changeFeed.retentionDays} days ago, longer than change feed cursors are served. ` +
        "Start again from oldestCursor (changes from about the retention's start on), and read what changed before it with list_mentions.",
      { details: { oldestCursor } },
    );
  }
  return at.seq;
};

/** One read from `after`: up to `limit` changes, and the position it covered. */
const readAfter = async (deps: MentionDeps, query: Record<string, unknown>, after: number, limit: number) => {
  const sequence = await deps.collections.sequences.findById(String(query.projectId));
  // Every number up to the head read first is committed (numbers commit in order): the read covers them.
  const head = sequence?.seq ?? 0;
  if (head <= after) return { items: [] as MentionDoc[], covered: after, hasMore: false };
  const found = await deps.collections.mentions.find({ ...query, changeSeq: { $gt: after, $lte: head } }, { sort: { changeSeq: 1 }, limit: limit + 1 });
  const hasMore = found.length > limit;
  const items = found.slice(0, limit);
  return { items, covered: hasMore ? items.at(-1)!.changeSeq! : head, hasMore };
};

/**
 * The project's mention changes after the cursor. With `waitSeconds` and nothing new, waits until a change
 * of the project commits (this process's own at once, other replicas' through their events) or the wait
 * ends, then answers what there is (maybe nothing, with a cursor that moved past what did not match).
 */
export const listMentionChanges = async (deps: MentionDeps, caller: Caller, input: ChangesInput): Promise<ChangesPage> => {
  const errors = required(input.projectId, "projectId");
  if (errors.length > 0) throw validationFailed(errors);
  const limit = pageLimit(input.limit);
  const waitMs = checkWait(input.waitSeconds) * 1000;
  const filters = checkFilters(input.filters);
  const collapse = collapseOf(input.collapse);
  await accessProject(deps, caller, input.projectId, "viewer");
  const view = await loadViewFilters(deps, input.projectId, input.viewId);
  const query = { ...mentionQuery(input.projectId, mergeFilters(view, filters)), ...collapseFilter(collapse) };
  let after = startOf(deps, input.projectId, input.cursor, await deps.collections.sequences.findById(input.projectId));
  const start = after;
  // Real time, not the service's clock: a wait is the caller's, however the clock is set.
  const deadline = Date.now() + waitMs;
  const listener = waitMs > 0 ? deps.changes.listen(input.projectId) : undefined;
  try {
    for (;;) {
      const read = await readAfter(deps, query, after, limit);
      after = read.covered;
      const left = deadline - Date.now();
      if (read.items.length > 0 || !listener || left <= 0 || input.signal?.aborted) {
        return {
          changes: (await withStorySizes(deps, read.items)).map((m) => ({ mention: summaryOf(m), change: (m.createdSeq ?? 0) > start ? "created" : "updated", seq: m.changeSeq! })),
          nextCursor: encodeChangeCursor({ projectId: input.projectId, seq: after, issuedAt: deps.clock.now() }),
          hasMore: read.hasMore,
        };
      }
      await listener.next(left, input.signal);
    }
  } finally {
    listener?.close();
  }
};
