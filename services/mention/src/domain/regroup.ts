import { type Filter, withVersionRetry } from "@earshot/platform/core";
import { MENTIONS, type MentionDoc } from "../store";
import { commitChanges, numbered } from "./change-sequence";
import type { MentionDeps } from "./deps";

// A mention's groups are the groups its matched keywords are in now, not the ones they were in when it was
// collected: moving a keyword to another group (or a deleted group's keywords to My brand) moves its
// mentions, old and new, so every read (filters, analytics, share of voice, exports, the public
// dashboard, views) counts them in the new group. The stored `groupIds` are brought up to date when the
// keyword event arrives (never at read time, so reads keep using the groupIds index), and derived from the
// keyword copies as they are then, not from the event's before and after: running it again, or after a
// crash half-way, ends the same.
//
// The mentions concerned are read and rewritten a page at a time, each page's changed mentions in one
// commit that numbers them in the project's change sequence (a regrouped mention is a change of the feed),
// so the work is bounded per write however many mentions a keyword has, and other writes go on between
// pages. A mention whose groups are right already is not rewritten.

/** Mentions regrouped per page: a page is one read and one commit. */
const PAGE = 500;

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * A mention's groups from its keywords' groups. A keyword without a copy (none should be: matching uses
 * the copies) adds nothing known, so such a mention keeps the groups it has as well.
 */
const groupsOf = (m: Pick<MentionDoc, "keywordIds" | "groupIds">, groupOf: ReadonlyMap<string, string>): string[] => {
  const known = m.keywordIds.map((id) => groupOf.get(id));
  const groups = known.filter((g): g is string => g !== undefined);
  return [...new Set(known.length === groups.length ? groups : [...m.groupIds, ...groups])];
};

/**
 * Rewrites one page's mentions whose groups are off, numbered in the project's change sequence in one
 * commit; read again when a mention changed meanwhile (a triage). Returns how many changed and the page's
 * next cursor.
 */
const regroupPage = (deps: MentionDeps, filter: Filter, cursor: string | null, groupOf: ReadonlyMap<string, string>, deleted: string | undefined) =>
  withVersionRetry(async () => {
    // In the lists' order (newest first): the index of the keyword's (or group's) list serves each page.
    const page = await deps.collections.mentions.findPage(filter, { limit: PAGE, cursor, sortField: "publishedAt", direction: -1 });
    const changed: MentionDoc[] = [];
    for (const m of page.items) {
      const groupIds = groupsOf(m, groupOf)
        .filter((g) => g !== deleted)
        .sort();
      if (!sameSet(groupIds, m.groupIds)) changed.push({ ...m, groupIds, _v: (m._v ?? 1) + 1 });
    }
    const projectId = String(filter.projectId);
    await commitChanges(deps, new Map([[projectId, changed.length]]), (first) => ({
      writes: changed.map((m, i) => ({ kind: "replace", collection: MENTIONS, doc: numbered(m, first.get(projectId)! + i), expectedVersion: (m._v ?? 2) - 1 })),
      events: [],
    }));
    return { changed: changed.length, nextCursor: page.nextCursor };
  });

/** Regroups the project's mentions `selector` picks, from the keyword copies as they are now; `deleted` is no group any more. */
const regroup = async (deps: MentionDeps, projectId: string, selector: Filter, deleted?: string): Promise<number> => {
  // Inactive keywords too: their mentions keep naming them. A project's keywords are few (the plan caps them).
  const groupOf = new Map((await deps.collections.keywords.find({ projectId })).map((k) => [k._id, k.groupId]));
  const filter = { projectId, ...selector };
  let changed = 0;
  let cursor: string | null = null;
  do {
    const page = await regroupPage(deps, filter, cursor, groupOf, deleted);
    changed += page.changed;
    cursor = page.nextCursor;
  } while (cursor);
  return changed;
};

/**
 * Brings the groups of a keyword's mentions in line with the keywords' groups in the copies. Skipped
 * without reading a mention when the store's count by group says every mention of the keyword is in the
 * keyword's group and no other (a repeated event, or a keyword that moved before it matched anything).
 */
export const regroupKeywordMentions = async (deps: MentionDeps, projectId: string, keywordId: string): Promise<number> => {
  const keyword = await deps.collections.keywords.findById(keywordId);
  if (!keyword || keyword.projectId !== projectId) return 0;
  const selector = { keywordIds: keywordId };
  const held = await deps.collections.mentions.countBy({ projectId, ...selector }, { by: "groupIds" });
  if (held.every((r) => r.key === keyword.groupId)) {
    const total = await deps.collections.mentions.count({ projectId, ...selector });
    if ((held[0]?.count ?? 0) === total) return 0;
  }
  return regroup(deps, projectId, selector);
};

/**
 * A deleted group: the mentions still holding it are regrouped without it (the keyword service moved its
 * keywords out first, so this finds none unless a keyword's move never reached this service).
 */
export const dropDeletedGroup = (deps: MentionDeps, projectId: string, groupId: string): Promise<number> =>
  regroup(deps, projectId, { groupIds: groupId }, groupId);

/** How often a batch's mentions are regrouped when keyword changes keep landing while it is stored. */
const SETTLE_ROUNDS = 5;

/**
 * After ingestion stored mentions with the groups its matcher had at `revisions` (per project): a keyword
 * event written to the copies since (the project's keywordsRevision moved) may have regrouped the
 * keyword's mentions before these were stored, so they are regrouped here, until a round sees no new change.
 * A change whose revision moves after the check regroups them itself, as they are stored by then.
 */
export const settleIngestedGroups = async (deps: MentionDeps, revisions: ReadonlyMap<string, number>, keywordIds: ReadonlyMap<string, ReadonlySet<string>>): Promise<void> => {
  const seen = new Map(revisions);
  for (let round = 0; round < SETTLE_ROUNDS && seen.size > 0; round++) {
    const states = await deps.collections.projects.find({ _id: { $in: [...seen.keys()] } });
    const moved = states.filter((s) => (s.keywordsRevision ?? 0) !== seen.get(s._id));
    seen.clear();
    for (const state of moved) {
      seen.set(state._id, state.keywordsRevision ?? 0);
      for (const keywordId of keywordIds.get(state._id) ?? []) await regroupKeywordMentions(deps, state._id, keywordId);
    }
  }
  if (seen.size > 0) deps.logger.warn({ projectIds: [...seen.keys()] }, "keywords kept changing while mentions were stored; their groups follow with the next change");
};

/**
 * Checks once, in the background at start, the projects whose mentions may predate groups following
 * keywords (a data directory or database from before): each keyword's mentions are regrouped (a count per
 * keyword where nothing is off) and the project is marked. `stopping` ends it between keywords, to resume
 * at the next start; replicas doing it together do the same idempotent work.
 */
export const checkProjectGroups = async (deps: MentionDeps, stopping: () => boolean = () => false): Promise<{ projects: number; mentions: number }> => {
  const done = { projects: 0, mentions: 0 };
  for (const project of await deps.collections.projects.find({ groupsChecked: { $exists: false } })) {
    for (const keyword of await deps.collections.keywords.find({ projectId: project._id })) {
      if (stopping()) return done;
      done.mentions += await regroupKeywordMentions(deps, project._id, keyword._id);
    }
    await deps.collections.projects.updateOne({ _id: project._id }, { $set: { groupsChecked: true } });
    done.projects += 1;
  }
  return done;
};
