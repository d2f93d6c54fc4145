import { alertFilterFields, alertFiltersSchema, createAlertSchema, listOf, updateAlertSchema } from "@earshot/alert/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { idField, pageQuery, projectId, resourceId } from "../shared/schemas";
import { alertSchema, presentAlert } from "./resource";
import { checkTargets } from "./targets";

const alertPath = z.object({ alertId: resourceId("alr", "The alert rule's id, e.g. alr_01J…") }).strict();

/** A rule's filters as the API takes them: the alert service's, their ids of their kinds' shape. */
const alertFilters = alertFiltersSchema.safeExtend({
  keywordIds: listOf(idField("kw"), "keywords").describe(alertFilterFields.keywordIds.description ?? "").default([]),
  groupIds: listOf(idField("kwg"), "groups").describe(alertFilterFields.groupIds.description ?? "").default([]),
});

const EMAILS =
  "Emails always go to the workspace owner, whoever made the rule: the digest at digest.hour (local time in the project's digestTimezone) with the matching mentions of the last 24 hours (none sent when nothing matched), " +
  "and with instant, new matching mentions within a minute, then at most one email per rule every 15 minutes. filters.keywordIds and filters.groupIds must be the project's (400 naming the entry otherwise). " +
  "filters.minRelevance (0 to 1) keeps only mentions whose relevance score, as it was when the mention was stored, is at least that (a mention without a score counts as 0.5).";

export const alertOperations = [
  defineOperation({
    name: "list_alerts",
    title: "List alert rules",
    description: "Lists a project's alert rules: its Daily Digest first, then the others oldest first.",
    method: "GET",
    path: "/alerts",
    scope: "alerts:read",
    tag: "Alerts",
    output: alertSchema,
    input: { query: z.object({ projectId, ...pageQuery.shape }) },
    successStatus: 200,
    list: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.alert.listAlerts({ projectId: input.projectId, limit: input.limit, cursor: input.cursor ?? "" });
      return { data: res.alerts.map(presentAlert), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "get_alert",
    title: "Get an alert rule",
    description: "Reads one alert rule.",
    method: "GET",
    path: "/alerts/:alertId",
    scope: "alerts:read",
    tag: "Alerts",
    output: alertSchema,
    input: { path: alertPath },
    successStatus: 200,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => ({ data: presentAlert((await ctx.backends.alert.getAlert({ alertId: input.alertId })).alert) }),
  }),
  defineOperation({
    name: "create_alert",
    title: "Create an alert rule",
    description: `Adds an alert rule to a project (editor or owner); only name is required. ${EMAILS}`,
    method: "POST",
    path: "/alerts",
    scope: "alerts:write",
    tag: "Alerts",
    output: alertSchema,
    input: { body: z.object({ projectId, ...createAlertSchema.shape, filters: alertFilters.default(createAlertSchema.shape.filters.def.defaultValue) }).strict() },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (input, ctx) => {
      await checkTargets(ctx.backends, input.projectId, input.filters);
      const { alert } = await ctx.backends.alert.createAlert({
        projectId: input.projectId,
        name: input.name,
        active: input.active,
        channels: { channels: input.channels },
        digest: input.digest,
        instant: input.instant,
        filters: input.filters,
      });
      return { data: presentAlert(alert) };
    },
  }),
  defineOperation({
    name: "update_alert",
    title: "Update an alert rule",
    description: `Changes any of a rule's name, active, channels, digest, instant and filters (editor or owner); a given object replaces the old one whole. ${EMAILS}`,
    method: "PATCH",
    path: "/alerts/:alertId",
    scope: "alerts:write",
    tag: "Alerts",
    output: alertSchema,
    input: { path: alertPath, body: updateAlertSchema.safeExtend({ filters: alertFilters.optional() }) },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      if (input.filters) {
        // The rule's project is the alert service's to say (and a rule the caller cannot see is 404 here).
        const { alert } = await ctx.backends.alert.getAlert({ alertId: input.alertId });
        await checkTargets(ctx.backends, alert?.projectId ?? "", input.filters);
      }
      const { alert } = await ctx.backends.alert.updateAlert({
        alertId: input.alertId,
        name: input.name,
        active: input.active,
        channels: input.channels ? { channels: input.channels } : undefined,
        digest: input.digest,
        instant: input.instant,
        filters: input.filters,
      });
      return { data: presentAlert(alert) };
    },
  }),
  defineOperation({
    name: "delete_alert",
    title: "Delete an alert rule",
    description: "Deletes an alert rule (editor or owner). The Daily Digest cannot be deleted (409 conflict): turn it off with update_alert active or digest.enabled. Returns the deleted rule.",
    method: "DELETE",
    path: "/alerts/:alertId",
    scope: "alerts:write",
    tag: "Alerts",
    output: alertSchema,
    input: { path: alertPath },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => ({ data: presentAlert((await ctx.backends.alert.deleteAlert({ alertId: input.alertId })).alert) }),
  }),
];
