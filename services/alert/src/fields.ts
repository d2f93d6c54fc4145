import { SENTIMENTS } from "@earshot/contracts/fields";
import { SOURCES, textField, type TextLimit } from "@earshot/platform/core";
import { z } from "zod";

// The fields of alert rules (API spec "Alert rule", DESIGN.md "Monitoring domain"), declared once: the
// edge builds its request schemas from them and the alert service checks what reaches it over gRPC with
// the same ones. Published as `@earshot/alert/fields`; imports nothing but zod, the platform and the
// mention fields (the sentiment words).

export const TEXT_LIMITS = {
  name: { min: 1, max: 100 },
  id: { min: 1, max: 64, maxBytes: 64 },
} satisfies Record<string, TextLimit>;

/** The rule every project gets, and its hour when none is given (local time in the project's digest zone). */
export const DAILY_DIGEST_NAME = "Daily Digest";
export const DEFAULT_DIGEST_HOUR = 8;
/** Targets per filter list: enough for any real rule, bounded so checking them stays a few reads. */
export const MAX_FILTER_VALUES = 50;
export const CHANNEL_TYPES = ["email"] as const;

const unique = (values: readonly unknown[]): boolean => new Set(values).size === values.length;

/** A list of the rule filters: bounded, no value twice. Exported for the edge, which lists ids of a checked shape. */
export const listOf = <T extends z.ZodType>(item: T, what: string) =>
  z
    .array(item)
    .max(MAX_FILTER_VALUES, { message: `must hold at most ${MAX_FILTER_VALUES} ${what}` })
    .refine(unique, { message: `must not repeat ${what}` })
    .meta({ uniqueItems: true });

const id = () => textField(TEXT_LIMITS.id).describe("An id, at most 64 bytes of UTF-8.");

export const alertFilterFields = {
  keywordIds: listOf(id(), "keywords").describe("Mentions matching any of these keywords of the project (kw_…)."),
  groupIds: listOf(id(), "groups").describe("Mentions matching a keyword of any of these groups of the project (kwg_…)."),
  sources: listOf(z.enum(SOURCES), "sources").describe("x, reddit, youtube, linkedin, hackernews, bluesky, rss, github (any of them)."),
  sentiments: listOf(z.enum(SENTIMENTS), "sentiments").describe("positive, neutral, negative (any of them)."),
  minRelevance: z
    .number({ message: "must be a number from 0 to 1" })
    .min(0, { message: "must be from 0 to 1" })
    .max(1, { message: "must be from 0 to 1" })
    .describe(
      "Only mentions whose relevance score is at least this (0 to 1), by the score the mention had when it was stored (later rescoring does not change what was alerted); " +
        "a mention without a score counts as 0.5. Left out: no bound.",
    ),
};

export const alertFiltersSchema = z
  .object({
    keywordIds: alertFilterFields.keywordIds.default([]),
    groupIds: alertFilterFields.groupIds.default([]),
    sources: alertFilterFields.sources.default([]),
    sentiments: alertFilterFields.sentiments.default([]),
    minRelevance: alertFilterFields.minRelevance.optional(),
  })
  .strict()
  .describe("Which mentions the rule is about; an empty (or missing) list filters nothing, lists all apply together.");
export type AlertFilters = z.output<typeof alertFiltersSchema>;

export const alertChannelSchema = z.object({ type: z.enum(CHANNEL_TYPES, { message: 'must be "email"' }) }).strict();

export const alertChannelsSchema = z
  .array(alertChannelSchema)
  .length(1, { message: 'must hold exactly one channel, { "type": "email" }' })
  .describe('Exactly one channel, { "type": "email" }: the emails go to the workspace owner, whoever made the rule.');
export type AlertChannel = z.output<typeof alertChannelSchema>;

export const alertDigestSchema = z
  .object({
    enabled: z.boolean().describe("Whether the rule's mentions of the last 24 hours are emailed once a day."),
    hour: z.number().int().min(0).max(23).default(DEFAULT_DIGEST_HOUR).describe("The hour (0-23) the digest is sent, local time in the project's digestTimezone; default 8."),
  })
  .strict();
export type AlertDigest = z.output<typeof alertDigestSchema>;

export const alertNameField = textField({ ...TEXT_LIMITS.name, trim: true }).describe("The rule's name, 1 to 100 characters.");

export const alertFields = {
  name: alertNameField,
  active: z.boolean().describe("An inactive rule sends nothing."),
  channels: alertChannelsSchema,
  digest: alertDigestSchema.describe("The daily digest: { enabled, hour } (hour 0-23, default 8)."),
  instant: z.boolean().describe("Email new matching mentions as they arrive: the first within a minute, then at most one email per rule every 15 minutes."),
  filters: alertFiltersSchema,
};

/** create_alert: only `name` is required; a rule is active, emails, and sends neither digest nor instant alerts unless told. */
export const createAlertSchema = z
  .object({
    name: alertFields.name,
    active: alertFields.active.default(true),
    channels: alertFields.channels.default([{ type: "email" }]),
    digest: alertFields.digest.default({ enabled: false, hour: DEFAULT_DIGEST_HOUR }),
    instant: alertFields.instant.default(false),
    filters: alertFields.filters.default({ keywordIds: [], groupIds: [], sources: [], sentiments: [] }),
  })
  .strict();
export type CreateAlertFields = z.output<typeof createAlertSchema>;

/** update_alert: any of the fields; a given object replaces the old one whole. */
export const updateAlertSchema = z
  .object({
    name: alertFields.name.optional(),
    active: alertFields.active.optional(),
    channels: alertFields.channels.optional(),
    digest: alertFields.digest.optional(),
    instant: alertFields.instant.optional(),
    filters: alertFields.filters.optional(),
  })
  .strict();
export type UpdateAlertFields = z.output<typeof updateAlertSchema>;
