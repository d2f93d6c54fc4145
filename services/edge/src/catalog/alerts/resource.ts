import { CHANNEL_TYPES } from "@earshot/alert/fields";
import { SENTIMENTS } from "@earshot/mention/fields";
import { SOURCES } from "@earshot/platform";
import type { alertV1 } from "@earshot/proto";
import { z } from "zod";
import { at, oneOf, required, resourceSchemas, timestamp } from "../shared/resources";

export const alertSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    active: z.boolean().describe("An inactive rule sends nothing."),
    channels: z.array(z.object({ type: z.enum(CHANNEL_TYPES) })).describe("Exactly one email channel: the emails go to the workspace owner."),
    digest: z.object({ enabled: z.boolean(), hour: z.number().int().describe("0-23, local time in the project's digestTimezone.") }),
    instant: z.boolean().describe("New matching mentions are emailed as they arrive, at most one email per rule every 15 minutes."),
    filters: z.object({
      keywordIds: z.array(z.string()),
      groupIds: z.array(z.string()),
      sources: z.array(z.enum(SOURCES)),
      sentiments: z.array(z.enum(SENTIMENTS)),
      minRelevance: z.number().nullable().describe("Only mentions scoring at least this (0 to 1; unscored mentions count as 0.5), by their score when stored; null: no bound."),
    }),
    isDefault: z.boolean().describe("true for the project's Daily Digest, which cannot be deleted."),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .register(resourceSchemas, { id: "Alert", description: "An alert rule: which of a project's mentions are emailed to the workspace owner, daily and as they arrive." });

export type Alert = z.output<typeof alertSchema>;

export const presentAlert = (message: alertV1.Alert | undefined): Alert => {
  const a = required(message, "alert");
  const digest = required(a.digest, "alert digest");
  const filters = required(a.filters, "alert filters");
  return {
    id: a.id,
    projectId: a.projectId,
    name: a.name,
    active: a.active,
    channels: a.channels.map((c) => ({ type: oneOf(CHANNEL_TYPES, c.type, "alert channel type") })),
    digest: { enabled: digest.enabled, hour: digest.hour },
    instant: a.instant,
    filters: {
      keywordIds: [...filters.keywordIds],
      groupIds: [...filters.groupIds],
      sources: filters.sources.map((s) => oneOf(SOURCES, s, "alert source")),
      sentiments: filters.sentiments.map((s) => oneOf(SENTIMENTS, s, "alert sentiment")),
      minRelevance: filters.minRelevance ?? null,
    },
    isDefault: a.isDefault,
    createdAt: at(a.createdAt, "alert createdAt"),
    updatedAt: at(a.updatedAt, "alert updatedAt"),
  };
};
