import { PROJECT_STATUS_WORDS, ROLE_WORDS, SOURCE_WORDS } from "@earshot/platform";
import { PROJECT_ROLES, PROJECT_STATUSES, SOURCES } from "@earshot/project/fields";
import type { projectV1 } from "@earshot/proto";
import { z } from "zod";
import { at, atOrNull, oneOf, optionalTimestamp, required, resourceSchemas, timestamp } from "../shared/resources";
import { apiWord } from "../shared/wire-enums";

export const publicDashboardSchema = z
  .object({
    enabled: z.boolean(),
    shareUrl: z.string().nullable().describe("The read-only page, assigned on first enable; null before."),
    description: z.string(),
    websiteUrl: z.string().nullable(),
  })
  .register(resourceSchemas, { id: "PublicDashboard" });

export const projectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    color: z.string(),
    icon: z.string(),
    enabledSources: z.array(z.enum(SOURCES)),
    status: z.enum(PROJECT_STATUSES),
    digestTimezone: z.string(),
    role: z.enum(PROJECT_ROLES).describe("The caller's role in the project."),
    workspaceId: z.string(),
    ownerId: z.string(),
    publicDashboard: publicDashboardSchema,
    createdAt: timestamp,
    updatedAt: timestamp,
    archivedAt: optionalTimestamp,
  })
  .register(resourceSchemas, { id: "Project", description: "A project and the caller's role in it." });

export type Project = z.output<typeof projectSchema>;

export const presentProject = (message: projectV1.Project | undefined, publicUrl: string): Project => {
  const p = required(message, "project");
  const dash = p.publicDashboard;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    color: p.color,
    icon: p.icon,
    enabledSources: p.enabledSources.map((s) => oneOf(SOURCES, apiWord(SOURCE_WORDS, s), "source")),
    status: oneOf(PROJECT_STATUSES, apiWord(PROJECT_STATUS_WORDS, p.status), "project status"),
    digestTimezone: p.digestTimezone,
    role: oneOf(PROJECT_ROLES, apiWord(ROLE_WORDS, p.role), "role"),
    workspaceId: p.workspaceId,
    ownerId: p.ownerId,
    publicDashboard: {
      enabled: dash?.enabled ?? false,
      shareUrl: dash?.shareId ? `${publicUrl}/p/${dash.shareId}` : null,
      description: dash?.description ?? "",
      websiteUrl: dash?.websiteUrl || null,
    },
    createdAt: at(p.createdAt, "project createdAt"),
    updatedAt: at(p.updatedAt, "project updatedAt"),
    archivedAt: atOrNull(p.archivedAt),
  };
};
