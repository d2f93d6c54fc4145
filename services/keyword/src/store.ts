import type { Collection, Doc, DocumentStore, ProjectCopyDoc } from "@earshot/platform";
import type { Source } from "@earshot/platform/core";
import type { DefaultGroupKind, KeywordFilters } from "./fields";

export interface KeywordDoc extends Doc {
  projectId: string;
  /** The project's workspace: whose keyword allowance the keyword counts against while active. */
  workspaceId: string;
  groupId: string;
  /** Phrases as stored: trimmed, white space collapsed. */
  value: string;
  sources: Source[];
  aliases: string[];
  excludedTerms: string[];
  filters: KeywordFilters;
  caseSensitive: boolean;
  active: boolean;
  /**
   * `<projectId>|<case rule>|<canonical value>` while active, absent while inactive: a unique sparse index
   * makes "one active keyword per value and case rule in a project" hold across racing writers.
   */
  activeKey?: string;
  /** Why it is inactive: the person who deactivated it, or its project's archival. */
  deactivatedBy?: "user" | "project_archived";
  createdAt: Date;
  updatedAt: Date;
  deactivatedAt?: Date;
}

export interface KeywordGroupDoc extends Doc {
  projectId: string;
  workspaceId: string;
  name: string;
  order: number;
  /** `<order, 7 digits>:<_id>`: lists page by it, so ties in order keep creation order (ids sort by time). */
  sortKey: string;
  kind: DefaultGroupKind | "custom";
  /** `<projectId>:<kind>` for the default groups, unique: created once however many writers race. */
  defaultKey?: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What this service knows of a project, from the project service's events (or first use). */
/** Each project's copy, from project events (the platform's project-copy rules). */
export type ProjectStateDoc = ProjectCopyDoc;

export interface KeywordCollections {
  keywords: Collection<KeywordDoc>;
  groups: Collection<KeywordGroupDoc>;
  projects: Collection<ProjectStateDoc>;
}

export const groupSortKey = (order: number, id: string) => `${String(order).padStart(7, "0")}:${id}`;

export const KEYWORDS = "keywords";
export const KEYWORD_GROUPS = "keyword_groups";
export const PROJECTS = "projects";

export const openKeywordCollections = async (store: DocumentStore): Promise<KeywordCollections> => {
  const keywords = store.collection<KeywordDoc>(KEYWORDS);
  const groups = store.collection<KeywordGroupDoc>(KEYWORD_GROUPS);
  const projects = store.collection<ProjectStateDoc>(PROJECTS);
  await keywords.ensureIndex({ fields: { activeKey: 1 }, unique: true, sparse: true });
  await keywords.ensureIndex({ fields: { projectId: 1, active: 1 } });
  await keywords.ensureIndex({ fields: { workspaceId: 1, active: 1 } });
  await keywords.ensureIndex({ fields: { groupId: 1, active: 1 } });
  await groups.ensureIndex({ fields: { defaultKey: 1 }, unique: true, sparse: true });
  await groups.ensureIndex({ fields: { projectId: 1, sortKey: 1 } });
  return { keywords, groups, projects };
};
