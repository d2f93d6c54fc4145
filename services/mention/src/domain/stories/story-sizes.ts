import type { MentionDoc } from "../../store";
import type { MentionDeps } from "../deps";

/**
 * The mentions with `storySize` set: one count for the whole page, by story. Sizes are counted when read
 * rather than kept on the mentions, so a story's growth writes nothing to its earlier mentions (and does
 * not move them in the change feed).
 */
export const withStorySizes = async <M extends Pick<MentionDoc, "projectId" | "storyId" | "storySize">>(deps: MentionDeps, mentions: readonly M[]): Promise<M[]> => {
  const storyIds = [...new Set(mentions.flatMap((m) => (m.storyId ? [m.storyId] : [])))];
  if (storyIds.length === 0) return [...mentions];
  const projectIds = [...new Set(mentions.map((m) => m.projectId))];
  const rows = await deps.collections.mentions.countBy({ projectId: { $in: projectIds }, storyId: { $in: storyIds } }, { by: "storyId" });
  const sizes = new Map(rows.map((r) => [String(r.key), r.count]));
  return mentions.map((m) => (m.storyId ? { ...m, storySize: sizes.get(m.storyId) ?? 1 } : m));
};
