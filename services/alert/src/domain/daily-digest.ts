import { isUniqueViolation, newId } from "@earshot/platform/core";
import { alertChangedEvent } from "../events";
import { DAILY_DIGEST_NAME, DEFAULT_DIGEST_HOUR } from "../fields";
import { ALERTS, type AlertDoc, alertSortKey } from "../store";
import type { AlertDeps } from "./deps";

// Every project has its Daily Digest rule: made when `project.created` arrives and, for projects that
// predate this service (or whose event is still on its way), on first use. Racing makers are harmless: the
// rule has a unique key per project, so one insert (and its alert.created) wins and the rest re-read.

export interface ProjectRef {
  projectId: string;
  workspaceId: string;
}

const defaultKey = (projectId: string) => `${projectId}:daily_digest`;

export const ensureDailyDigest = async (deps: AlertDeps, project: ProjectRef): Promise<AlertDoc> => {
  const read = () => deps.collections.alerts.findOne({ defaultKey: defaultKey(project.projectId) });
  const existing = await read();
  if (existing) return existing;
  const now = deps.clock.now();
  const id = newId("alr", now.getTime());
  const rule: AlertDoc = {
    _id: id,
    projectId: project.projectId,
    workspaceId: project.workspaceId,
    name: DAILY_DIGEST_NAME,
    active: true,
    channels: [{ type: "email" }],
    digest: { enabled: true, hour: DEFAULT_DIGEST_HOUR },
    instant: false,
    filters: { keywordIds: [], groupIds: [], sources: [], sentiments: [] },
    kind: "daily_digest",
    defaultKey: defaultKey(project.projectId),
    sortKey: alertSortKey("daily_digest", id),
    createdAt: now,
    updatedAt: now,
    _v: 1,
  };
  try {
    await deps.outbox.commit([{ kind: "insert", collection: ALERTS, doc: rule }], [alertChangedEvent("alert.created", rule)]);
    return rule;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return (await read()) as AlertDoc;
  }
};
