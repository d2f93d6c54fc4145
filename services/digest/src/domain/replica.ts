import type { AccountEvent, AlertEvent, ProjectEvent } from "@earshot/contracts/events";
import type { DigestDeps } from "./deps";
import { isKnownTimeZone } from "./local-time";

// What this service keeps of other services' events, so that sending needs nobody else: each workspace's
// owner and address (account), each project's name, zone and status (project), and every alert rule
// (alert). Each copy is upserted whole from the event, so a replayed event changes nothing.

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

const STATUSES = new Set(["active", "paused", "archived"]);

export const handleProjectEvent = async (deps: DigestDeps, event: ProjectEvent): Promise<void> => {
  const now = deps.clock.now();
  const { projectId, workspaceId } = event.data;
  if (!projectId) return;
  const projects = deps.collections.projects;
  switch (event.type) {
    case "project.created": {
      const { name, digestTimezone } = event.data;
      await projects.updateOne(
        { _id: projectId },
        { $set: { workspaceId, name, digestTimezone: isKnownTimeZone(digestTimezone) ? digestTimezone : "UTC", status: "active", updatedAt: now } },
        { upsert: true },
      );
      return;
    }
    case "project.updated": {
      const { status, digestTimezone } = event.data;
      const set: Record<string, unknown> = { workspaceId, updatedAt: now };
      if (STATUSES.has(status)) set.status = status;
      if (digestTimezone && isKnownTimeZone(digestTimezone)) set.digestTimezone = digestTimezone;
      await projects.updateOne({ _id: projectId, status: { $ne: "archived" } }, { $set: set });
      return;
    }
    case "project.archived":
      await projects.updateOne({ _id: projectId }, { $set: { status: "archived", updatedAt: now } });
      return;
    default:
      return;
  }
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
        filters: { keywordIds: [...r.keywordIds], groupIds: [...r.groupIds], sources: [...r.sources], sentiments: [...r.sentiments] },
        isDefault: r.isDefault,
        createdAt: r.createdAt ? new Date(r.createdAt) : now,
        updatedAt: now,
      },
    },
    { upsert: true },
  );
};
