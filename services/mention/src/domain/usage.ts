import { validationFailed } from "@earshot/platform/core";
import type { MentionDeps } from "./deps";

// What a workspace used this calendar month (UTC), for get_usage: the mentions its projects received.
// Deleting a category, a keyword or an account never deletes mentions, so the count never goes down
// within a month.

/** The first instant of the UTC month `now` falls in. */
export const startOfUtcMonth = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

export const mentionsThisMonth = async (deps: Pick<MentionDeps, "collections" | "clock">, workspaceId: string): Promise<number> => {
  if (!workspaceId) throw validationFailed([{ path: "workspaceId", message: "is required" }]);
  return deps.collections.mentions.count({ workspaceId, matchedAt: { $gte: startOfUtcMonth(deps.clock.now()) } });
};
