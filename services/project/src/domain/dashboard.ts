import { randomBytes } from "node:crypto";
import { checkText, conflict, isUniqueViolation, validationFailed, type FieldError } from "@earshot/platform";
import type { ProjectDoc } from "../store";
import { loadProjectWithRole, type ProjectView } from "./access";
import type { Caller, ProjectDeps } from "./deps";
import { TEXT_LIMITS } from "./project-rules";
import { projectUpdatedEvent } from "../events";
import { bumped, replaceProject, withRetry } from "./projects";

// The read-only public dashboard. Its share id is assigned on first enable and kept while disabled, so a
// shared URL is never handed to another project.

const isWebUrl = (s: string): boolean => {
  if (s.length > 2048) return false;
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname.length > 0;
  } catch {
    return false;
  }
};

export const setPublicDashboard = (
  deps: ProjectDeps,
  caller: Caller,
  input: { projectId: string; enabled: boolean; description?: string; websiteUrl?: string },
): Promise<ProjectView> =>
  withRetry(async () => {
    const errors: FieldError[] = [];
    errors.push(...checkText("description", input.description, TEXT_LIMITS.dashboardDescription));
    if (input.websiteUrl !== undefined && input.websiteUrl !== "" && !isWebUrl(input.websiteUrl)) {
      errors.push({ path: "websiteUrl", message: "must be an http or https URL" });
    }
    if (errors.length > 0) throw validationFailed(errors);
    const view = await loadProjectWithRole(deps, caller, input.projectId, "editor");
    if (view.project.status === "archived") throw conflict("The project is archived.");
    const dash = { ...view.project.publicDashboard, enabled: input.enabled };
    if (input.description !== undefined) dash.description = input.description;
    if (input.websiteUrl !== undefined) {
      if (input.websiteUrl === "") delete dash.websiteUrl;
      else dash.websiteUrl = input.websiteUrl;
    }
    if (input.enabled && !dash.shareId) dash.shareId = randomBytes(9).toString("base64url");
    const next: ProjectDoc = { ...view.project, publicDashboard: dash, updatedAt: deps.clock.now() };
    try {
      await deps.outbox.commit(
        [replaceProject(view.project, next)],
        [projectUpdatedEvent(next, ["publicDashboard"])],
      );
    } catch (err) {
      // A share id clash (one in 2^72) is retried with a fresh id by failing as a version conflict would.
      if (isUniqueViolation(err)) throw conflict("Could not reserve a share URL; try again.");
      throw err;
    }
    return { ...view, project: bumped(next) };
  });
