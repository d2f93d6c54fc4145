import { checkFields, type FieldError } from "@earshot/platform/core";
import { projectFieldsSchema, PROJECT_STATUSES, type ProjectStatus } from "../fields";

// Defaults of a project (API spec section 2) and the service's check of its fields. The rules themselves
// live in `../fields.ts`, shared with the edge; the service checks them again because it owns the
// invariant (gRPC callers reach it without the edge).

export { isIanaTimezone, PROJECT_DEFAULTS, PROJECT_STATUSES, type ProjectRole, type ProjectStatus, SOURCES, type Source, TEXT_LIMITS } from "../fields";

export const isProjectStatus = (s: string): s is ProjectStatus => (PROJECT_STATUSES as readonly string[]).includes(s);

export interface ProjectFields {
  name?: string;
  description?: string;
  color?: string;
  icon?: string;
  enabledSources?: string[];
  digestTimezone?: string;
}

export const checkProjectFields = (f: ProjectFields): FieldError[] => checkFields(projectFieldsSchema, f);
