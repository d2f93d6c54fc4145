import type { KeywordEvent } from "@earshot/contracts/events";
import type { MentionDoc } from "../store";
import type { DigestDeps } from "./deps";

// A mention's groups are the groups its keywords are in now, as in the mention service: a rule filtering by
// group counts a moved keyword's mentions in its new group. The digest keeps each keyword's group from the
// keyword events (from the earliest, so every keyword is known) and, when one changes group, re-derives the
// groups of the mentions it keeps of that keyword (three days' worth at most). A new mention is kept with
// its keywords' groups as known here when it arrives, since its event may come after a move it predates.

type Grouped = Pick<MentionDoc, "keywordIds" | "groupIds">;

/** The groups of the mentions' keywords as known here, by keyword id: one read. */
const groupsByKeyword = async (deps: DigestDeps, mentions: readonly Grouped[]): Promise<Map<string, string>> => {
  const keywordIds = [...new Set(mentions.flatMap((m) => m.keywordIds))];
  if (keywordIds.length === 0) return new Map();
  return new Map((await deps.collections.keywords.find({ _id: { $in: keywordIds } })).map((k) => [k._id, k.groupId]));
};

/**
 * A mention's groups: its keywords' groups. A keyword not known here (its events are older than the bus
 * keeps) adds nothing known, so the mention keeps the groups it came with as well.
 */
const groupsOf = (m: Grouped, groupOf: ReadonlyMap<string, string>): string[] => {
  const known = m.keywordIds.map((id) => groupOf.get(id));
  const groups = known.filter((g): g is string => g !== undefined);
  return [...new Set(known.length === groups.length ? groups : [...m.groupIds, ...groups])];
};

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * Stores new mentions (`store` writes them) with their keywords' groups as known here. A move handled while
 * they are being stored may have regrouped the kept mentions before these were among them: the groups are
 * read again after the write and the mentions of a keyword that moved meanwhile are regrouped; a move
 * written after that read finds them stored. `mentions` are left with the groups stored.
 */
export const storeWithCurrentGroups = async (deps: DigestDeps, mentions: MentionDoc[], store: () => Promise<void>): Promise<void> => {
  const before = await groupsByKeyword(deps, mentions);
  for (const m of mentions) m.groupIds = groupsOf(m, before);
  await store();
  const after = await groupsByKeyword(deps, mentions);
  for (const m of mentions) {
    if (m.keywordIds.every((k) => before.get(k) === after.get(k))) continue;
    m.groupIds = groupsOf(m, after);
    await deps.collections.mentions.updateOne({ _id: m._id }, { $set: { groupIds: m.groupIds } });
  }
};

/** Brings the groups of the kept mentions of a keyword in line with the keywords' groups now. */
const regroupMentionsOf = async (deps: DigestDeps, projectId: string, keywordId: string): Promise<void> => {
  const mentions = await deps.collections.mentions.find({ projectId, keywordIds: keywordId });
  const groupOf = await groupsByKeyword(deps, mentions);
  for (const m of mentions) {
    const groupIds = groupsOf(m, groupOf);
    if (!sameSet(groupIds, m.groupIds)) await deps.collections.mentions.updateOne({ _id: m._id }, { $set: { groupIds } });
  }
};

/**
 * Keyword events: each keyword's group, kept; one whose changes name `groupId` (a move, or a deleted
 * group's keyword moved to My brand) regroups its mentions. Idempotent: the groups are derived from the
 * copies, so a redelivered event ends the same. Group events need nothing: a group is deleted only after
 * its keywords moved out.
 */
export const handleKeywordEvent = async (deps: DigestDeps, event: KeywordEvent): Promise<void> => {
  if (event.type !== "keyword.created" && event.type !== "keyword.updated" && event.type !== "keyword.deactivated") return;
  const { keywordId, projectId, groupId, fields } = event.data;
  if (!keywordId || !projectId || !groupId) return;
  await deps.collections.keywords.updateOne({ _id: keywordId }, { $set: { projectId, groupId, updatedAt: deps.clock.now() } }, { upsert: true });
  if (fields.includes("groupId")) await regroupMentionsOf(deps, projectId, keywordId);
};
