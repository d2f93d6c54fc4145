import { PROJECT_STATUS_WORDS, SOURCE_WORDS } from "@earshot/platform";
import { PROJECT_COPY_STATUSES, SOURCES } from "@earshot/platform/core";
import type { projectV1 } from "@earshot/proto";
import { z } from "zod";
import { apiWord, at, atOrNull, oneOf, optionalTimestamp, required, resourceSchemas, timestamp } from "./present";

// A project as the API presents it, less the caller's role: what a `project.*` webhook carries, and what
// get_project answers with the caller's role beside it (the edge adds `role`).

export const publicDashboardSchema = z
  .object({
    enabled: z.boolean(),
    shareUrl: z.string().nullable().describe("The read-only page, assigned on first enable; null before."),
    description: z.string(),
    websiteUrl: z.string().nullable(),
    minRelevance: z.number().nullable().describe("The dashboard shows only mentions scoring at least this (0 to 1; unscored ones count as 0.5); null: every mention."),
  })
  .register(resourceSchemas, { id: "PublicDashboard" });

export const projectFields = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  color: z.string(),
  icon: z.string(),
  enabledSources: z.array(z.enum(SOURCES)),
  status: z.enum(PROJECT_COPY_STATUSES),
  digestTimezone: z.string(),
  workspaceId: z.string(),
  ownerId: z.string(),
  publicDashboard: publicDashboardSchema,
  createdAt: timestamp,
  updatedAt: timestamp,
  archivedAt: optionalTimestamp,
};

export const projectDataSchema = z
  .object(projectFields)
  .register(resourceSchemas, { id: "ProjectData", description: "A project as a webhook carries it: get_project's answer without the caller's role." });

export type ProjectData = z.output<typeof projectDataSchema>;

/** `publicUrl` is the origin the share URL is on (EARSHOT_PUBLIC_URL). */
export const presentProjectData = (message: projectV1.Project | undefined, publicUrl: string): ProjectData => {
  const p = required(message, "project");
  const dash = p.publicDashboard;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    color: p.color,
    icon: p.icon,
    enabledSources: p.enabledSources.map((s) => oneOf(SOURCES, apiWord(SOURCE_WORDS, s), "source")),
    status: oneOf(PROJECT_COPY_STATUSES, apiWord(PROJECT_STATUS_WORDS, p.status), "project status"),
    digestTimezone: p.digestTimezone,
    workspaceId: p.workspaceId,
    ownerId: p.ownerId,
    publicDashboard: {
      enabled: dash?.enabled ?? false,
      shareUrl: dash?.shareId ? `${publicUrl}/p/${dash.shareId}` : null,
      description: dash?.description ?? "",
      websiteUrl: dash?.websiteUrl || null,
      minRelevance: dash?.minRelevance ?? null,
    },
    createdAt: at(p.createdAt, "project createdAt"),
    updatedAt: at(p.updatedAt, "project updatedAt"),
    archivedAt: atOrNull(p.archivedAt),
  };
};
