import { accessProjectOf, type ProjectAccess as Access } from "@earshot/platform/core";
import type { ProjectCopyDoc } from "../store";
import type { Caller, IntegrationDeps, ProjectRole } from "./deps";

// Who may see a project's collection and manage its LinkedIn connection (spec section 5): members read
// source health; LinkedIn management is the owner's; a non-member or an archived project answers
// not_found. The rule is the platform's; this names the service's own record of projects.

export type ProjectAccess = Access<ProjectCopyDoc>;

export const accessProject = (deps: IntegrationDeps, caller: Caller, projectId: string, minimum: ProjectRole, what = "Project"): Promise<ProjectAccess> =>
  accessProjectOf(caller, projectId, minimum, (id) => deps.collections.projects.findById(id), what);
