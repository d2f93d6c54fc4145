import type { webhookV1 } from "@earshot/proto";
import { DELIVERY_STATUS_WORDS, DELIVERY_STATUSES, SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_FORMAT_WORDS, WEBHOOK_FORMATS } from "@earshot/webhook/fields";
import { z } from "zod";
import { at, atOrNull, oneOf, optionalTimestamp, required, resourceSchemas, timestamp } from "../shared/resources";
import { apiWord } from "../shared/wire-enums";

export const webhookSchema = z
  .object({
    id: z.string(),
    projectId: z.string().nullable().describe("null: the endpoint receives the events of every project of the workspace."),
    name: z.string(),
    url: z
      .string()
      .describe(
        "The receiver's URL. A chat endpoint's (slack, discord) is its secret: whole only in the answer to the create or update that set it, " +
          "masked everywhere else as its scheme and host and the last 4 characters (https://hooks.slack.com/…Xy12).",
      ),
    format: z
      .enum(WEBHOOK_FORMATS)
      .describe("standard: signed Standard Webhooks; slack: Slack incoming-webhook messages (Block Kit); discord: Discord webhook messages (embeds)."),
    eventTypes: z.array(z.enum(SUBSCRIBABLE_EVENT_TYPES)),
    minRelevance: z
      .number()
      .nullable()
      .describe("mention.created is delivered only for mentions scoring at least this (0 to 1; unscored mentions count as 0.5); null: every mention."),
    oncePerStory: z
      .boolean()
      .describe("true: mention.created is delivered only for a mention that starts a story (the first copy of an article or text to arrive), so a story is delivered once."),
    active: z.boolean(),
    deactivatedReason: z
      .enum(["user", "failing"])
      .nullable()
      .describe("Why it is inactive: turned off (user), or deactivated after 5 days of failed deliveries (failing); null while active."),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .register(resourceSchemas, { id: "Webhook", description: "A webhook endpoint. Its signing secret is shown only on create and rotation." });

export const webhookWithSecretSchema = webhookSchema
  .extend({
    secret: z
      .string()
      .nullable()
      .describe(
        "The signing secret (whsec_…), on create and on rotateSecret only (null otherwise): keep it, it is not shown again. Verify deliveries with any Standard Webhooks library. " +
          "Always null for chat formats (slack, discord): they are not signed, their URL is the secret.",
      ),
  })
  .register(resourceSchemas, { id: "WebhookWithSecret", description: "A webhook endpoint with its new signing secret." });

export const webhookTestSchema = z
  .object({
    endpointId: z.string(),
    eventId: z.string().describe("The test event's id: the webhook-id header the receiver gets; find its delivery by it."),
    eventType: z.literal("webhook.test"),
  })
  .register(resourceSchemas, { id: "WebhookTest", description: "A queued test event." });

const attemptSchema = z.object({
  at: timestamp,
  statusCode: z.number().int().nullable().describe("The receiver's HTTP status; null when none came."),
  durationMs: z.number().int(),
  response: z.string().describe("The first 2 KB of the receiver's answer."),
  error: z.string().nullable().describe("Why no answer came (timeout, refused address, TLS, redirect…); null when one did."),
});

export const deliverySchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventId: z.string().describe("The webhook-id header: the same on every attempt and redelivery."),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES).describe("held: the workspace's daily delivery budget ran out; it goes out after the reset (00:00 UTC)."),
    attempts: z.number().int(),
    createdAt: timestamp,
    nextAttemptAt: optionalTimestamp,
  })
  .register(resourceSchemas, { id: "WebhookDelivery", description: "One event sent (or to be sent) to one endpoint." });

export const deliveryDetailSchema = deliverySchema
  .extend({
    request: z.object({
      headers: z.record(z.string(), z.string()).describe("The headers of the last attempt, less webhook-signature."),
      body: z
        .string()
        .describe(
          "The body sent: { type, timestamp, data, context }. A chat endpoint's (slack, discord) is this mention's message, which went out joined with the others due at the same time.",
        ),
    }),
    attemptLog: z.array(attemptSchema).describe("Every attempt, oldest first."),
  })
  .register(resourceSchemas, { id: "WebhookDeliveryDetail", description: "A delivery with the request sent and every attempt." });

export type Webhook = z.output<typeof webhookSchema>;
export type Delivery = z.output<typeof deliverySchema>;
export type DeliveryDetail = z.output<typeof deliveryDetailSchema>;

export const presentWebhook = (message: webhookV1.Webhook | undefined): Webhook => {
  const w = required(message, "webhook");
  return {
    id: w.id,
    projectId: w.projectId || null,
    name: w.name,
    url: w.url,
    // Endpoints stored before formats answer UNSPECIFIED: standard.
    format: oneOf(WEBHOOK_FORMATS, apiWord(WEBHOOK_FORMAT_WORDS, w.format) ?? "standard", "webhook format"),
    eventTypes: w.eventTypes.map((t) => oneOf(SUBSCRIBABLE_EVENT_TYPES, t, "event type")),
    minRelevance: w.minRelevance ?? null,
    oncePerStory: w.oncePerStory,
    active: w.active,
    deactivatedReason: w.active ? null : oneOf(["user", "failing"] as const, w.deactivatedReason || "user", "deactivated reason"),
    createdAt: at(w.createdAt, "webhook createdAt"),
    updatedAt: at(w.updatedAt, "webhook updatedAt"),
  };
};

export const presentWebhookWithSecret = (message: webhookV1.Webhook | undefined, secret: string): z.output<typeof webhookWithSecretSchema> => ({
  ...presentWebhook(message),
  secret: secret || null,
});

export const presentDelivery = (message: webhookV1.Delivery | undefined): Delivery => {
  const d = required(message, "delivery");
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: oneOf(DELIVERY_STATUSES, apiWord(DELIVERY_STATUS_WORDS, d.status), "delivery status"),
    attempts: d.attemptCount,
    createdAt: at(d.createdAt, "delivery createdAt"),
    nextAttemptAt: atOrNull(d.nextAttemptAt),
  };
};

export const presentDeliveryDetail = (message: webhookV1.Delivery | undefined): DeliveryDetail => {
  const d = required(message, "delivery");
  return {
    ...presentDelivery(d),
    request: { headers: { ...d.requestHeaders }, body: d.requestBody },
    attemptLog: d.attempts.map((a) => ({
      at: at(a.at, "attempt at"),
      statusCode: a.statusCode || null,
      durationMs: a.durationMs,
      response: a.response,
      error: a.error || null,
    })),
  };
};
