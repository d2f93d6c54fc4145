import { isUniqueViolation, newId } from "@earshot/platform/core";
import { DEFAULT_GROUPS } from "../fields";
import { groupEvent } from "../events";
import { groupSortKey, KEYWORD_GROUPS, type KeywordGroupDoc } from "../store";
import type { KeywordDeps } from "./deps";

// Every project has the fixed groups My brand and Competitors. They are made when `project.created`
// arrives and, for projects that predate this service (or whose event is still on its way), on first use.
// Racing makers are harmless: each default group has a unique key, so one insert wins and the rest re-read.

export interface ProjectRef {
  projectId: string;
  workspaceId: string;
}

const defaultKey = (projectId: string, kind: string) => `${projectId}:${kind}`;

/** The project's default groups, made now if missing; ordered My brand, Competitors. */
export const ensureDefaultGroups = async (deps: KeywordDeps, project: ProjectRef): Promise<KeywordGroupDoc[]> => {
  const keys = DEFAULT_GROUPS.map((g) => defaultKey(project.projectId, g.kind));
  const read = () => deps.collections.groups.find({ defaultKey: { $in: keys } });
  const existing = await read();
  if (existing.length === DEFAULT_GROUPS.length) return sortDefaults(existing);
  const now = deps.clock.now();
  const have = new Set(existing.map((g) => g.kind));
  const made = DEFAULT_GROUPS.filter((g) => !have.has(g.kind)).map((g): KeywordGroupDoc => {
    const id = newId("kwg", now.getTime());
    return {
      _id: id,
      projectId: project.projectId,
      workspaceId: project.workspaceId,
      name: g.name,
      order: g.order,
      sortKey: groupSortKey(g.order, id),
      kind: g.kind,
      defaultKey: defaultKey(project.projectId, g.kind),
      createdAt: now,
      updatedAt: now,
      _v: 1,
    };
  });
  try {
    await deps.outbox.commit(
      made.map((doc) => ({ kind: "insert" as const, collection: KEYWORD_GROUPS, doc })),
      made.map((group) => groupEvent("keyword_group.created", { group, keywordCount: 0, inactiveKeywordCount: 0 })),
    );
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  return sortDefaults(await read());
};

const sortDefaults = (groups: KeywordGroupDoc[]) => [...groups].sort((a, b) => a.order - b.order);

/** The default group a keyword without `groupId` goes to. */
export const myBrandGroup = async (deps: KeywordDeps, project: ProjectRef): Promise<KeywordGroupDoc> => {
  const groups = await ensureDefaultGroups(deps, project);
  return groups.find((g) => g.kind === "my_brand") as KeywordGroupDoc;
};
