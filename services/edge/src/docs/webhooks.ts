import { WEBHOOK_EVENT_TYPES } from "@earshot/webhook/fields";
import { webhookDataComponentId, webhookPayloadDoc } from "@earshot/webhook/payloads";
import { z } from "zod";
import { singleTypes } from "./single-types";

// The OpenAPI 3.1 `webhooks` object: one entry per deliverable event type, the request Earshot sends to an
// endpoint listing it. Its body is `{ type, timestamp, data, context }`: `data` the resource as the API
// presents it (a schema of components.schemas, the same the operations answer with, less the caller's
// fields), `context` what the event says beside it; the example is made by the delivery code itself.

type Json = Record<string, unknown>;

const schemaOf = (schema: z.ZodType): Json => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" }) as Json;
  return singleTypes(rest);
};

const SIGNATURE_HEADERS = [
  { name: "webhook-id", description: "The event's id: the same on every attempt and redelivery (deduplicate by it)." },
  { name: "webhook-timestamp", description: "When this attempt was signed, in seconds since the epoch." },
  { name: "webhook-signature", description: "v1,<base64 HMAC-SHA256 of id.timestamp.body> per live secret, space-separated (Standard Webhooks)." },
].map((h) => ({ ...h, in: "header", required: true, schema: { type: "string" } }));

export const webhookWebhooks = (): Record<string, Json> =>
  Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const doc = webhookPayloadDoc(type);
      return [
        type,
        {
          post: {
            summary: doc.summary,
            description: `Sent to each active endpoint listing \`${type}\` (or \`*\`) of the resource's workspace or project. \`data\` is the resource as the API's read of it answered at that moment; \`context\` is what the event says beside it. Answer 2xx within 10 s, or the delivery is retried.`,
            tags: ["Webhooks"],
            parameters: SIGNATURE_HEADERS,
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["type", "timestamp", "data", "context"],
                    properties: {
                      type: { type: "string", const: type },
                      timestamp: { type: "string", format: "date-time", description: "When the event happened." },
                      data: { $ref: `#/components/schemas/${webhookDataComponentId(type)}` },
                      context: schemaOf(doc.context),
                    },
                  },
                  example: doc.example,
                },
              },
            },
            responses: { "2XX": { description: "Received: any 2xx within 10 s. Anything else is retried with the same webhook-id." } },
          },
        },
      ];
    }),
  );
