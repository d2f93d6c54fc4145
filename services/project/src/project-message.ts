import { enumValueOf, PROJECT_STATUS_WORDS, ROLE_WORDS, SOURCE_WORDS } from "@earshot/platform";
import type { commonV1, projectV1 } from "@earshot/proto";
import type { ProjectDoc } from "./store";

// A project as a gRPC message: what the API's reads answer (with the caller's role) and what the
// `project.*` events carry (role "": unspecified, an event has no caller), so a webhook's data is what
// get_project presents.

export const toProjectMessage = (p: ProjectDoc, role: string): projectV1.Project => ({
  id: p._id,
  workspaceId: p.workspaceId,
  ownerId: p.ownerId,
  name: p.name,
  description: p.description,
  color: p.color,
  icon: p.icon,
  enabledSources: p.enabledSources.map((w) => enumValueOf<commonV1.Source>(SOURCE_WORDS, w)),
  status: enumValueOf<commonV1.ProjectStatus>(PROJECT_STATUS_WORDS, p.status),
  digestTimezone: p.digestTimezone,
  role: enumValueOf<commonV1.Role>(ROLE_WORDS, role),
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
  publicDashboard: {
    enabled: p.publicDashboard.enabled,
    shareId: p.publicDashboard.shareId ?? "",
    description: p.publicDashboard.description,
    websiteUrl: p.publicDashboard.websiteUrl ?? "",
    ...(p.publicDashboard.minRelevance !== undefined ? { minRelevance: p.publicDashboard.minRelevance } : {}),
  },
  archivedAt: p.archivedAt,
});
