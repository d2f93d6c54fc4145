import { randomBytes } from "node:crypto";
import { checkFields, conflict, isUniqueViolation, validationFailed, withVersionRetry } from "@earshot/platform/core";
import { dashboardFieldsSchema } from "../fields";
import type { ProjectDoc } from "../store";
import { loadProjectWithRole, type ProjectView } from "./access";
import type { Caller, ProjectDeps } from "./deps";
import { projectUpdatedEvent } from "../events";
import { withDashboardChange } from "./dashboard-announcement";
import { bumped, replaceProject } from "./project-writes";

// The read-only public dashboard. Its share id is assigned on first enable and kept while disabled, so a
// shared URL is never handed to another project.

export const checkDashboardFields = (input: { description?: string | undefined; websiteUrl?: string | undefined; minRelevance?: number | undefined }) =>
  checkFields(dashboardFieldsSchema, { description: input.description, websiteUrl: input.websiteUrl, minRelevance: input.minRelevance });

export const setPublicDashboard = (
  deps: ProjectDeps,
  caller: Caller,
  input: { projectId: string; enabled: boolean; description?: string; websiteUrl?: string; minRelevance?: number },
): Promise<ProjectView> =>
  withVersionRetry(async () => {
    const errors = checkDashboardFields(input);
    if (errors.length > 0) throw validationFailed(errors);
    const view = await loadProjectWithRole(deps, caller, input.projectId, "editor");
    if (view.project.status === "archived") throw conflict("The project is archived.");
    const dash = { ...view.project.publicDashboard, enabled: input.enabled };
    if (input.description !== undefined) dash.description = input.description;
    if (input.websiteUrl !== undefined) {
      if (input.websiteUrl === "") delete dash.websiteUrl;
      else dash.websiteUrl = input.websiteUrl;
    }
    // 0 bounds nothing: stored as no bound.
    if (input.minRelevance === 0) delete dash.minRelevance;
    else if (input.minRelevance !== undefined) dash.minRelevance = input.minRelevance;
    if (input.enabled && !dash.shareId) dash.shareId = randomBytes(9).toString("base64url");
    const changed: ProjectDoc = { ...view.project, publicDashboard: dash, updatedAt: deps.clock.now() };
    const { next, events } = withDashboardChange(view.project, changed);
    try {
      await deps.outbox.commit([replaceProject(view.project, next)], [projectUpdatedEvent(next, ["publicDashboard"]), ...events]);
    } catch (err) {
      // A share id clash (one in 2^72) is retried with a fresh id by failing as a version conflict would.
      if (isUniqueViolation(err)) throw conflict("Could not reserve a share URL; try again.");
      throw err;
    }
    return { ...view, project: bumped(next) };
  });
