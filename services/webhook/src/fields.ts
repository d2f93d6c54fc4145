import { patternRule, textField } from "@earshot/platform/core";
import { enumWords, type EnumWords } from "@earshot/platform";
import { webhookV1 } from "@earshot/proto";
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "./deliverable";

// The fields of webhook endpoints, declared once: the edge builds its request
// schemas from them and the webhook service checks what reaches it over gRPC with the same ones. Published
// as `@earshot/webhook/fields`.

export { INTERNAL_EVENT_TYPES, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./deliverable";

/** The one type only test_webhook sends. */
export const TEST_EVENT_TYPE = "webhook.test" as const;

/**
 * A published event as the fan-out needs it: its envelope, the workspace and project it is about, and what
 * its deliveries' body carries beside `type` and `timestamp`: `data` (the resource as the API presents it)
 * and `context` (what the event says beside it), made only when an endpoint wants the event. It throws for
 * an event that does not carry its resource (staged by a producer older than this version).
 */
export interface DeliverableEvent {
  id: string;
  type: string;
  time: string;
  data: { workspaceId: string; projectId: string };
  body(): { data: unknown; context: Record<string, unknown> };
}

/** Every type an endpoint may list: the deliverable events and the wildcard. */
export const SUBSCRIBABLE_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, "*"] as const;

/** The delivery statuses, as the API says them. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "retrying", "failed", "held"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The delivery statuses on gRPC (`earshot.webhook.v1.DeliveryStatus`) and their words, both ways, for the service and the edge. */
export const DELIVERY_STATUS_WORDS: EnumWords<webhookV1.DeliveryStatus, DeliveryStatus> = enumWords([
  [webhookV1.DeliveryStatus.DELIVERY_STATUS_PENDING, "pending"],
  [webhookV1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED, "succeeded"],
  [webhookV1.DeliveryStatus.DELIVERY_STATUS_RETRYING, "retrying"],
  [webhookV1.DeliveryStatus.DELIVERY_STATUS_FAILED, "failed"],
  [webhookV1.DeliveryStatus.DELIVERY_STATUS_HELD, "held"],
]);

/**
 * How an endpoint's deliveries are written: signed Standard Webhooks (`standard`), or a chat message for a
 * Slack incoming webhook (`slack`, also what Mattermost and Rocket.Chat accept) or a Discord webhook
 * (`discord`). Fixed when the endpoint is created.
 */
export const WEBHOOK_FORMATS = ["standard", "slack", "discord"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
export type ChatFormat = Exclude<WebhookFormat, "standard">;

export const isChatFormat = (format: WebhookFormat | undefined): format is ChatFormat => format === "slack" || format === "discord";

/** A chat message is about a new mention: the one type a chat endpoint takes (and test_webhook's test message). */
export const CHAT_EVENT_TYPES = ["mention.created"] as const;

export const CHAT_EVENT_TYPES_MESSAGE = 'chat formats (slack, discord) carry mention.created only: give ["mention.created"] or leave eventTypes out';

/** Whether `eventTypes` is what a chat endpoint may take: mention.created, and nothing else. */
export const isChatEventTypes = (eventTypes: readonly string[]): boolean => eventTypes.length > 0 && eventTypes.every((t) => t === "mention.created");

/** The formats on gRPC (`earshot.webhook.v1.WebhookFormat`) and their words; UNSPECIFIED is standard. */
export const WEBHOOK_FORMAT_WORDS: EnumWords<webhookV1.WebhookFormat, WebhookFormat> = enumWords([
  [webhookV1.WebhookFormat.WEBHOOK_FORMAT_STANDARD, "standard"],
  [webhookV1.WebhookFormat.WEBHOOK_FORMAT_SLACK, "slack"],
  [webhookV1.WebhookFormat.WEBHOOK_FORMAT_DISCORD, "discord"],
]);

export const MAX_EVENT_TYPES = SUBSCRIBABLE_EVENT_TYPES.length;
export const MAX_URL_LENGTH = 2048;

/** Whether an endpoint listing `eventTypes` receives an event of `type`. */
export const subscribesTo = (eventTypes: readonly string[], type: string): boolean => eventTypes.includes("*") || eventTypes.includes(type);

const name = textField({ min: 1, max: 100, trim: true }).describe("A name to tell endpoints apart, 1 to 100 characters.");

/** The shape JSON Schema can state (the scheme, no white space); the rules beside it say the rest. */
const URL_SHAPE = "^[Hh][Tt][Tt][Pp][Ss]?://\\S+$";

/**
 * The port of an absolute URL as written (`https://host:99999/` → "99999"), or undefined without one. Read
 * from the text, because a URL with a bad port does not parse at all and would otherwise be "not a URL".
 */
const writtenPort = (s: string): string | undefined => {
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(s)?.[1];
  if (authority === undefined) return undefined;
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  // An IPv6 literal is bracketed, colons and all: its port follows the bracket.
  const port = (hostPort.startsWith("[") ? /^\[[^\]]*\](?::(.*))?$/ : /^[^:]*(?::(.*))?$/).exec(hostPort)?.[1];
  return port === "" ? undefined : port;
};

/** No port written, or a number from 1 to 65535. */
const hasValidPort = (s: string): boolean => {
  const port = writtenPort(s);
  return port === undefined || (/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535);
};

/**
 * What a receiver's URL must look like, each with its own message, checked in this order (the first broken
 * one is reported, so a later rule may assume the earlier ones): white space, the port, being a URL at all,
 * the scheme. Plain http passes here: whether it may be used depends on the operator's setting and on where
 * the host resolves, which the service checks when the endpoint is saved (and the worker at every connection).
 */
const URL_RULES = [
  { test: (s: string) => !/\s/u.test(s), message: "must not contain spaces or other white space (write a space in a path or query as %20)" },
  { test: hasValidPort, message: "has an invalid port: a port is a number from 1 to 65535" },
  { test: (s: string) => URL.canParse(s), message: "must be an absolute URL with a scheme and a host, such as https://hooks.example.com/earshot" },
  { test: (s: string) => ["https:", "http:"].includes(new URL(s).protocol), message: "must be an https URL" },
  patternRule(URL_SHAPE, "must be an https URL"),
];

/**
 * The receiver's URL: https (plain http only to a private or loopback address where the operator allows
 * private networks). Whether its host resolves, and to what, is checked by the service, and again by the
 * delivery worker at every connection.
 */
const url = textField({
  min: 1,
  max: MAX_URL_LENGTH,
  maxBytes: MAX_URL_LENGTH,
  rule: URL_RULES,
}).describe(
  "The receiver's https URL with a host, at most 2048 bytes of UTF-8. Its host must resolve, and every address it resolves to must be public " +
    "(loopback, private, link-local, CGNAT, multicast and metadata addresses are refused) unless the operator allows private networks " +
    "(EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true); there, plain http is also accepted for a receiver on a private or loopback address.",
);

const eventTypes = z
  .array(z.enum(SUBSCRIBABLE_EVENT_TYPES, { message: `must be one of ${SUBSCRIBABLE_EVENT_TYPES.join(", ")}` }))
  .min(1, { message: "must name at least one event type" })
  .max(MAX_EVENT_TYPES)
  .describe(
    "The event types sent to the endpoint, or * for all of them. Member, user, API key and post.collected events are never sent; webhook.test only by test_webhook.",
  );

const format = z
  .enum(WEBHOOK_FORMATS, { message: `must be one of ${WEBHOOK_FORMATS.join(", ")}` })
  .describe(
    "What the endpoint receives: standard (signed Standard Webhooks, the default), slack (a Slack incoming-webhook message, Block Kit) or discord " +
      "(a Discord webhook message with an embed per mention). Chat formats take mention.created only, are not signed (their URL is the secret, " +
      "shown whole only in this answer) and batch several mentions into one message. Fixed once created.",
  );

/**
 * The rule between format and eventTypes, for create: a standard endpoint names its event types; a chat one
 * takes mention.created alone (its default). A refinement of the whole body, so the edge adds it to its own.
 */
export const formatEventTypesRule = (input: { format?: WebhookFormat | undefined; eventTypes?: readonly string[] | undefined }, ctx: z.RefinementCtx): void => {
  if (isChatFormat(input.format)) {
    if (input.eventTypes !== undefined && !isChatEventTypes(input.eventTypes)) ctx.addIssue({ code: "custom", path: ["eventTypes"], message: CHAT_EVENT_TYPES_MESSAGE });
  } else if (input.eventTypes === undefined) {
    ctx.addIssue({ code: "custom", path: ["eventTypes"], message: "is required for the standard format (only chat formats default to mention.created)" });
  }
};

/** A relevance score is a fraction; outside 0..1 is a mistake worth naming. */
const minRelevance = z
  .number({ message: "must be a number from 0 to 1" })
  .min(0, { message: "must be from 0 to 1" })
  .max(1, { message: "must be from 0 to 1" })
  .describe(
    "Deliver mention.created only for mentions whose relevance score is at least this (0 to 1); a mention stored without a score counts as 0.5. " +
      "0 or left out: every mention. Other event types are not affected.",
  );

const oncePerStory = z
  .boolean({ message: "must be true or false" })
  .describe(
    "true delivers mention.created once per story (copies of an article or near-identical text across sources within 72 hours), for its first copy to arrive, " +
      "so a story shared on several sources is delivered once; with minRelevance, its first copy to reach the bound. " +
      "false or left out: every mention. Other event types are not affected.",
  );

export const webhookFields = {
  name,
  url,
  eventTypes,
  format,
  minRelevance,
  oncePerStory,
  active: z.boolean().describe("false stops deliveries to the endpoint; true resumes them."),
  rotateSecret: z
    .boolean()
    .describe("true issues a new signing secret, returned this once in data.secret; the old one keeps signing beside it for 24 hours. " +
        "Standard endpoints only: a chat endpoint (slack, discord) is not signed, its URL is the secret; give it a new url instead."),
};

const createEventTypes = eventTypes.describe(
  "The event types sent to the endpoint, or * for all of them (required for standard). Member, user, API key and post.collected events are never sent; " +
    "webhook.test only by test_webhook. Chat formats take exactly [\"mention.created\"], their default.",
);

/** Create's fields; `formatEventTypesRule` relates two of them (the edge spreads the shape and adds the rule again). */
export const createWebhookSchema = z
  .object({ name, url, eventTypes: createEventTypes.optional(), format: format.optional(), minRelevance: minRelevance.optional(), oncePerStory: oncePerStory.optional() })
  .strict()
  .superRefine(formatEventTypesRule);
export const updateWebhookSchema = z
  .object({
    name: name.optional(),
    url: url.optional(),
    eventTypes: eventTypes.optional(),
    active: webhookFields.active.optional(),
    rotateSecret: webhookFields.rotateSecret.optional(),
    minRelevance: minRelevance.optional(),
    oncePerStory: oncePerStory.optional(),
  })
  .strict();
