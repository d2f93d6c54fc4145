import type { Collection, Doc, DocumentStore, ProjectCopyDoc } from "@earshot/platform";
import type { AlertChannel, AlertDigest, AlertFilters } from "./fields";

export interface AlertDoc extends Doc {
  projectId: string;
  workspaceId: string;
  name: string;
  active: boolean;
  channels: AlertChannel[];
  digest: AlertDigest;
  instant: boolean;
  filters: AlertFilters;
  /** `daily_digest`: the project's own rule, made for it and never deleted; `custom`: one people added. */
  kind: "daily_digest" | "custom";
  /** `<projectId>:daily_digest`, unique: one Daily Digest per project however many makers race. */
  defaultKey?: string;
  /** Lists order by it: the Daily Digest first, then the others oldest first. */
  sortKey: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What this service keeps of each project from the project service's events. */
/** Each project's copy, from project events (the platform's project-copy rules). */
export type ProjectStateDoc = ProjectCopyDoc;

export interface AlertCollections {
  alerts: Collection<AlertDoc>;
  projects: Collection<ProjectStateDoc>;
}

export const ALERTS = "alerts";
export const PROJECTS = "projects";

export const alertSortKey = (kind: AlertDoc["kind"], id: string) => `${kind === "daily_digest" ? 0 : 1}:${id}`;

export const openAlertCollections = async (store: DocumentStore): Promise<AlertCollections> => {
  const alerts = store.collection<AlertDoc>(ALERTS);
  const projects = store.collection<ProjectStateDoc>(PROJECTS);
  await alerts.ensureIndex({ fields: { defaultKey: 1 }, unique: true, sparse: true });
  await alerts.ensureIndex({ fields: { projectId: 1, sortKey: 1 } });
  return { alerts, projects };
};
