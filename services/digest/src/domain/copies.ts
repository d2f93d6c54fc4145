import type { AccountEvent, AlertEvent, ProjectEvent } from "@earshot/contracts/events";
import type { DigestDeps } from "./deps";
import { isKnownTimeZone } from "./local-time";
import { applyProjectChange, projectChangeOf } from "@earshot/platform/core";

// What this service keeps of other services' events, so that sending needs nobody else: each workspace's
// owner and address (account), each project's copy (the platform's project-copy rules) with its name and
// zone (project), and every alert rule (alert). Each copy is upserted whole from the event, so a replayed event changes nothing.

export const handleAccountEvent = async (deps: DigestDeps, event: AccountEvent): Promise<void> => {
  const now = deps.clock.now();
  switch (event.type) {
    case "user.created": {
      const { userId, workspaceId, email } = event.data;
      if (!workspaceId || !email) return;
      await deps.collections.owners.updateOne({ _id: workspaceId }, { $set: { userId, email, active: true, updatedAt: now } }, { upsert: true });
      return;
    }
    case "user.deactivated":
    case "user.reactivated": {
      const { workspaceId } = event.data;
      if (!workspaceId) return;
      await deps.collections.owners.updateOne({ _id: workspaceId }, { $set: { active: event.type === "user.reactivated", updatedAt: now } });
      return;
    }
    default:
      return;
  }
};

/** The zone a project's digest counts its day in: the event's, when this build knows it. */
const zoneOf = (zone: string): string | undefined => (zone && isKnownTimeZone(zone) ? zone : undefined);

export const handleProjectEvent = async (deps: DigestDeps, event: ProjectEvent): Promise<void> => {
  const change = projectChangeOf(event);
  if (!change) return;
  const fields =
    event.type === "project.created"
      ? { name: event.data.name, digestTimezone: zoneOf(event.data.digestTimezone) ?? "UTC" }
      : event.type === "project.updated"
        ? // A renamed project's emails say its new name: the event carries the project as it is now.
          { name: event.data.project?.name, digestTimezone: zoneOf(event.data.digestTimezone) }
        : {};
  await applyProjectChange(deps.collections.projects, change, { fields, defaults: { name: "", digestTimezone: "UTC" }, now: deps.clock.now() });
};

export const handleAlertEvent = async (deps: DigestDeps, event: AlertEvent): Promise<void> => {
  const now = deps.clock.now();
  if (event.type === "alert.deleted") {
    await deps.collections.rules.deleteOne({ _id: event.data.alertId });
    await deps.collections.pending.deleteMany({ ruleId: event.data.alertId });
    return;
  }
  const r = event.data;
  if (!r.alertId) return;
  await deps.collections.rules.updateOne(
    { _id: r.alertId },
    {
      $set: {
        projectId: r.projectId,
        workspaceId: r.workspaceId,
        name: r.name,
        active: r.active,
        digest: { enabled: r.digestEnabled, hour: r.digestHour },
        instant: r.instant,
        filters: {
          keywordIds: [...r.keywordIds],
          groupIds: [...r.groupIds],
          sources: [...r.sources],
          sentiments: [...r.sentiments],
          ...(r.minRelevance !== undefined ? { minRelevance: r.minRelevance } : {}),
        },
        isDefault: r.isDefault,
        createdAt: r.createdAt ? new Date(r.createdAt) : now,
        updatedAt: now,
      },
    },
    { upsert: true },
  );
};
