import type { ProjectEvent } from "@earshot/contracts/events";
import { applyProjectChange, projectChangeOf } from "@earshot/platform/core";
import { ensureDailyDigest } from "./daily-digest";
import type { AlertDeps } from "./deps";

// What this service keeps of the project service's events: each project's copy (the platform's
// project-copy rules: an archived project's rules answer not_found), and the Daily Digest of every new
// project.

export const handleProjectEvent = async (deps: AlertDeps, event: ProjectEvent): Promise<void> => {
  const change = projectChangeOf(event);
  if (!change) return;
  await applyProjectChange(deps.collections.projects, change, { now: deps.clock.now() });
  if (event.type === "project.created") await ensureDailyDigest(deps, change);
};
