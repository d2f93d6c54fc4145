import { accessProjectOf, type ProjectAccess as Access } from "@earshot/platform/core";
import type { ProjectStateDoc } from "../store";
import type { AlertDeps, Caller, ProjectRole } from "./deps";

// Who may do what with a project's alert rules (spec section 5): viewers read, editors and owners write;
// a non-member or an archived project answers not_found. The rule is the platform's; this names the
// service's own record of projects.

export type ProjectAccess = Access<ProjectStateDoc>;

export const accessProject = (deps: AlertDeps, caller: Caller, projectId: string, minimum: ProjectRole, what = "Project"): Promise<ProjectAccess> =>
  accessProjectOf(caller, projectId, minimum, (id) => deps.collections.projects.findById(id), what);
