import type { Filter } from "@earshot/platform/core";
import type { MentionDeps } from "./deps";

// A mention's groups are the groups its matched keywords are in now, not the ones they were in when it was
// collected: moving a keyword to another group (or a deleted group's keywords to My brand) moves its
// mentions, old and new, so every read (filters, analytics, share of voice, exports, the public
// dashboard, views) counts them in the new group. The stored `groupIds` are brought up to date when the
// keyword event arrives, by updates over the keyword's mentions (never at read time, so reads keep using
// the groupIds index), and the update is derived from the copies as they are now, not from the event's
// before and after: running it again, or after a crash half-way, gives the same groups.

/** Mentions read per page where a stale group must be checked mention by mention. */
const PAGE = 500;

/**
 * Takes `groupId` off the mentions `scope` selects that hold it, except those matching one of the
 * keywords the group holds now. `scopedToOtherKeyword`: every mention of the scope matched a keyword that
 * is not in the group, so a mention that matched that keyword alone loses the group in one update.
 */
const dropStaleGroup = async (deps: MentionDeps, projectId: string, groupId: string, scope: Filter, scopedToOtherKeyword: boolean): Promise<void> => {
  const { mentions, keywords } = deps.collections;
  const holding = { projectId, groupIds: groupId, ...scope };
  const stillIn = new Set((await keywords.find({ projectId, groupId })).map((k) => k._id));
  if (stillIn.size === 0) {
    await mentions.updateMany(holding, { $pull: { groupIds: groupId } });
    return;
  }
  if (scopedToOtherKeyword) await mentions.updateMany({ $and: [holding, { keywordIds: { $size: 1 } }] }, { $pull: { groupIds: groupId } });
  // The rest matched several keywords: the group stays on those with a keyword still in it. (The store
  // has no "none of" for arrays that means the same on every adapter, so they are read, a page at a time.)
  let cursor: string | null = null;
  do {
    const page = await mentions.findPage(holding, { limit: PAGE, cursor });
    const stale = page.items.filter((m) => !m.keywordIds.some((k) => stillIn.has(k))).map((m) => m._id);
    if (stale.length > 0) await mentions.updateMany({ _id: { $in: stale }, groupIds: groupId }, { $pull: { groupIds: groupId } });
    cursor = page.nextCursor;
  } while (cursor);
};

/**
 * Brings the groups of a keyword's mentions in line with the keyword's group in the copies: each gains it,
 * and loses any other group none of its keywords is in any more. A keyword without a copy is left alone.
 */
export const regroupKeywordMentions = async (deps: MentionDeps, projectId: string, keywordId: string): Promise<void> => {
  const keyword = await deps.collections.keywords.findById(keywordId);
  if (!keyword || keyword.projectId !== projectId) return;
  const { mentions } = deps.collections;
  const ofKeyword = { projectId, keywordIds: keywordId };
  // Which groups the keyword's mentions hold, counted by the store: usually just the keyword's own.
  const held = new Map((await mentions.countBy(ofKeyword, { by: "groupIds" })).map((r) => [r.key, r.count]));
  const total = await mentions.count(ofKeyword);
  if ((held.get(keyword.groupId) ?? 0) < total) await mentions.updateMany(ofKeyword, { $addToSet: { groupIds: keyword.groupId } });
  for (const groupId of held.keys()) {
    if (typeof groupId === "string" && groupId !== keyword.groupId) await dropStaleGroup(deps, projectId, groupId, { keywordIds: keywordId }, true);
  }
};

/** A deleted group: no mention keeps it but for a keyword the copies still place in it. */
export const dropDeletedGroup = (deps: MentionDeps, projectId: string, groupId: string): Promise<void> => dropStaleGroup(deps, projectId, groupId, {}, false);

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
