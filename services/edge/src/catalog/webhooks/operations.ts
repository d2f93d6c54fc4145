import {
  createWebhookSchema,
  DELIVERY_STATUS_WORDS,
  DELIVERY_STATUSES,
  formatEventTypesRule,
  TEST_EVENT_TYPE,
  updateWebhookSchema,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_FORMAT_WORDS,
} from "@earshot/webhook/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { webhookV1 } from "@earshot/proto";
import { pageQuery, projectId, resourceId } from "../shared/schemas";
import { wireValue } from "../shared/wire-enums";
import {
  deliveryDetailSchema,
  deliverySchema,
  presentDelivery,
  presentDeliveryDetail,
  presentWebhook,
  presentWebhookWithSecret,
  webhookSchema,
  webhookTestSchema,
  webhookWithSecretSchema,
} from "./resource";

const endpointId = resourceId("whk", "The webhook endpoint's id, e.g. whk_01J…");
const webhookPath = z.object({ endpointId }).strict();
const deliveryPath = z.object({ endpointId, deliveryId: resourceId("dlv", "The delivery's id, e.g. dlv_01J…") }).strict();

const WHO = "A project's endpoint needs the editor role in the project; a workspace endpoint (no projectId) the workspace owner.";
const SIGNING =
  "Deliveries are Standard Webhooks: a JSON body { type, timestamp, data } with the headers webhook-id, webhook-timestamp and webhook-signature (HMAC-SHA256 with the secret).";
const CHAT =
  "format slack or discord posts each new mention (mention.created, the only type they take) to a Slack incoming webhook or a Discord webhook as a readable message " +
  "(author, source, text, sentiment, keyword, link), several mentions to a message when they come together, paced to the provider's rate limits. " +
  "Chat endpoints are not signed: the URL is the secret, answered whole only here and masked (scheme, host, last 4 characters) in every later read.";
const RELEVANCE =
  "minRelevance (0 to 1) delivers mention.created only for mentions whose relevance score, as stored with the mention, is at least this (a mention without a score counts as 0.5); oncePerStory (true) delivers it once per story, for the story's first copy to arrive that passes minRelevance, so an article shared on several sources is delivered once; other event types are not affected by either.";

export const webhookOperations = [
  defineOperation({
    name: "list_webhooks",
    title: "List webhook endpoints",
    description: "Lists webhook endpoints, newest first: a project's (projectId), or without it every endpoint of the caller's workspace. Secrets are never shown.",
    method: "GET",
    path: "/webhooks",
    scope: "webhooks:read",
    tag: "Webhooks",
    output: webhookSchema,
    input: { query: z.object({ projectId: projectId.optional(), ...pageQuery.shape }) },
    successStatus: 200,
    list: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.webhook.listWebhooks({ projectId: input.projectId ?? "", limit: input.limit, cursor: input.cursor ?? "" });
      return { data: res.webhooks.map(presentWebhook), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "create_webhook",
    title: "Create a webhook endpoint",
    description: `Registers an https endpoint that receives the events it lists, signed. The signing secret is returned once, in data.secret. ${WHO} ${SIGNING} ${CHAT} ${RELEVANCE} Example: { "name": "Mentions in #brand", "url": "https://hooks.slack.com/services/T…/B…/…", "format": "slack", "minRelevance": 0.65 }.`,
    method: "POST",
    path: "/webhooks",
    scope: "webhooks:write",
    tag: "Webhooks",
    sensitive: true,
    output: webhookWithSecretSchema,
    input: {
      body: z
        .object({
          projectId: projectId.nullable().optional().describe("The project whose events it receives; null or absent: every project of the workspace."),
          ...createWebhookSchema.shape,
        })
        .strict()
        .superRefine(formatEventTypesRule),
    },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    handler: async (input, ctx) => {
      const res = await ctx.backends.webhook.createWebhook({
        projectId: input.projectId ?? "",
        name: input.name,
        url: input.url,
        eventTypes: input.eventTypes ?? [],
        format: wireValue(WEBHOOK_FORMAT_WORDS, input.format ?? "standard"),
        minRelevance: input.minRelevance,
        oncePerStory: input.oncePerStory,
      });
      return { data: presentWebhookWithSecret(res.webhook, res.secret) };
    },
  }),
  defineOperation({
    name: "get_webhook",
    title: "Get a webhook endpoint",
    description: "Reads one webhook endpoint (never its secret).",
    method: "GET",
    path: "/webhooks/:endpointId",
    scope: "webhooks:read",
    tag: "Webhooks",
    output: webhookSchema,
    input: { path: webhookPath },
    successStatus: 200,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { webhook } = await ctx.backends.webhook.getWebhook({ endpointId: input.endpointId });
      return { data: presentWebhook(webhook) };
    },
  }),
  defineOperation({
    name: "update_webhook",
    title: "Update a webhook endpoint",
    description: `Changes any of name, url, eventTypes, minRelevance (0 removes the bound) and oncePerStory, turns the endpoint off or on (active), or rotates its secret (rotateSecret: the new one is returned once; the old one keeps signing beside it for 24 hours). The format is fixed at create. A chat endpoint (slack, discord) has no secret to rotate (400 naming rotateSecret): give it a new url, answered whole this once; its eventTypes stay ["mention.created"]. ${WHO}`,
    method: "PATCH",
    path: "/webhooks/:endpointId",
    scope: "webhooks:write",
    tag: "Webhooks",
    sensitive: true,
    output: webhookWithSecretSchema,
    input: { path: webhookPath, body: updateWebhookSchema },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    handler: async (input, ctx) => {
      const res = await ctx.backends.webhook.updateWebhook({
        endpointId: input.endpointId,
        name: input.name,
        url: input.url,
        eventTypes: input.eventTypes ? { eventTypes: input.eventTypes } : undefined,
        active: input.active,
        rotateSecret: input.rotateSecret ?? false,
        minRelevance: input.minRelevance,
        oncePerStory: input.oncePerStory,
      });
      return { data: presentWebhookWithSecret(res.webhook, res.secret) };
    },
  }),
  defineOperation({
    name: "test_webhook",
    title: "Send a test event",
    description: `Queues one signed ${TEST_EVENT_TYPE} event to exactly this endpoint (whatever its event types); a chat endpoint (slack, discord) gets a test message ("Earshot test message from project …"). It counts against the workspace's daily delivery budget; when that is spent the answer is 402 usage_limited (limit webhook_deliveries). ${WHO}`,
    method: "POST",
    path: "/webhooks/:endpointId/test",
    scope: "webhooks:write",
    tag: "Webhooks",
    output: webhookTestSchema,
    input: { path: webhookPath },
    successStatus: 202,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    handler: async (input, ctx) => {
      const res = await ctx.backends.webhook.testWebhook({ endpointId: input.endpointId });
      return { data: { endpointId: input.endpointId, eventId: res.eventId, eventType: TEST_EVENT_TYPE } };
    },
  }),
  defineOperation({
    name: "delete_webhook",
    title: "Delete a webhook endpoint",
    description: `Deletes the endpoint and its delivery history; nothing more is sent to it. Returns the deleted endpoint. ${WHO}`,
    method: "DELETE",
    path: "/webhooks/:endpointId",
    scope: "webhooks:write",
    tag: "Webhooks",
    output: webhookSchema,
    input: { path: webhookPath },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { webhook } = await ctx.backends.webhook.deleteWebhook({ endpointId: input.endpointId });
      return { data: presentWebhook(webhook) };
    },
  }),
  defineOperation({
    name: "list_webhook_deliveries",
    title: "List webhook deliveries",
    description: "Lists an endpoint's deliveries, newest first (kept 30 days), filtered by status, eventType and since (created at or after).",
    method: "GET",
    path: "/webhooks/:endpointId/deliveries",
    scope: "webhooks:read",
    tag: "Webhooks",
    output: deliverySchema,
    input: {
      path: webhookPath,
      query: z.object({
        status: z.enum(DELIVERY_STATUSES).optional().describe("Only deliveries in this status."),
        eventType: z.enum([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]).optional().describe("Only deliveries of this event type."),
        since: z.iso.datetime().optional().describe("Only deliveries created at or after this instant (ISO 8601)."),
        ...pageQuery.shape,
      }),
    },
    successStatus: 200,
    list: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.webhook.listWebhookDeliveries({
        endpointId: input.endpointId,
        status: input.status ? wireValue(DELIVERY_STATUS_WORDS, input.status) : webhookV1.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED,
        eventType: input.eventType ?? "",
        since: input.since ? new Date(input.since) : undefined,
        limit: input.limit,
        cursor: input.cursor ?? "",
      });
      return { data: res.deliveries.map(presentDelivery), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "get_webhook_delivery",
    title: "Get a webhook delivery",
    description: "Reads one delivery: the request headers and body sent, and each attempt with its time, status code, duration, the first 2 KB of the answer or the error.",
    method: "GET",
    path: "/webhooks/:endpointId/deliveries/:deliveryId",
    scope: "webhooks:read",
    tag: "Webhooks",
    output: deliveryDetailSchema,
    input: { path: deliveryPath },
    successStatus: 200,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { delivery } = await ctx.backends.webhook.getWebhookDelivery({ endpointId: input.endpointId, deliveryId: input.deliveryId });
      return { data: presentDeliveryDetail(delivery) };
    },
  }),
  defineOperation({
    name: "redeliver_webhook_delivery",
    title: "Redeliver a webhook delivery",
    description: `Sends a delivery's event again, the same body under the same webhook-id, starting the retry schedule over; it counts against the daily delivery budget. ${WHO}`,
    method: "POST",
    path: "/webhooks/:endpointId/deliveries/:deliveryId/redeliver",
    scope: "webhooks:write",
    tag: "Webhooks",
    output: deliverySchema,
    input: { path: deliveryPath },
    successStatus: 202,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    handler: async (input, ctx) => {
      const { delivery } = await ctx.backends.webhook.redeliverWebhookDelivery({ endpointId: input.endpointId, deliveryId: input.deliveryId });
      return { data: presentDelivery(delivery) };
    },
  }),
];
