import { enumValueOf, enumWordOf, requireProjectCaller, type RpcContext } from "@earshot/platform";
import { webhookV1 } from "@earshot/proto";
import { getDelivery, listDeliveries, redeliver } from "../domain/deliveries";
import type { Caller, WebhookDeps } from "../domain/deps";
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, testWebhook, updateWebhook } from "../domain/endpoints";
import { workspaceUsage } from "../domain/budget";
import { maskedUrl } from "../chat/url";
import { DELIVERY_STATUS_WORDS, isChatFormat, WEBHOOK_FORMAT_WORDS, type WebhookFormat } from "../fields";
import type { DeliveryDoc, EndpointDoc } from "../store";

// gRPC adapter: decode, call a domain verb, encode. No rules live here; the caller comes from the call's
// metadata. Secrets appear only in the answers to a create and a rotation; a chat endpoint's URL (its secret)
// whole only in the answer to the create or update that gave it, masked in every other.

const callerOf = (ctx: RpcContext): Caller => requireProjectCaller(ctx);

/** proto3 cannot tell an unset number from 0: a 0 limit means "the default". */
const limitOf = (limit: number): number | undefined => (limit === 0 ? undefined : limit);

export const toWebhookMessage = (e: EndpointDoc, options: { wholeUrl?: boolean } = {}): webhookV1.Webhook => ({
  id: e._id,
  projectId: e.projectId ?? "",
  workspaceId: e.workspaceId,
  name: e.name,
  url: isChatFormat(e.format) && !options.wholeUrl ? maskedUrl(e.url) : e.url,
  format: enumValueOf(WEBHOOK_FORMAT_WORDS, e.format ?? "standard"),
  ...(e.minRelevance !== undefined ? { minRelevance: e.minRelevance } : {}),
  oncePerStory: e.oncePerStory === true,
  eventTypes: [...e.eventTypes],
  active: e.active,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
  deactivatedReason: e.active ? "" : (e.deactivatedReason ?? "user"),
});

export const toDeliveryMessage = (d: DeliveryDoc): webhookV1.Delivery => ({
  id: d._id,
  endpointId: d.endpointId,
  eventId: d.eventId,
  eventType: d.eventType,
  status: enumValueOf(DELIVERY_STATUS_WORDS, d.status),
  attemptCount: d.attempts.length,
  createdAt: d.createdAt,
  // A finished delivery is due no more; an open one's due time may be a claim's end, which is when it is next tried.
  nextAttemptAt: d.status === "succeeded" || d.status === "failed" ? undefined : d.nextAttemptAt,
  // A delivery log copy from before the merge, not yet completed by the delivery deployable, has these as
  // requestHeaders/requestBody (domain/adoption.ts).
  requestHeaders: { ...(d.headers ?? (d as { requestHeaders?: Record<string, string> }).requestHeaders) },
  requestBody: d.body ?? (d as { requestBody?: string }).requestBody ?? "",
  attempts: d.attempts.map((a) => ({ at: a.at, statusCode: a.statusCode, durationMs: a.durationMs, response: a.response, error: a.error })),
});

export const webhookRpc = (deps: WebhookDeps) => ({
  createWebhook: async (req: webhookV1.CreateWebhookRequest, ctx: RpcContext): Promise<webhookV1.CreateWebhookResponse> => {
    const { endpoint, secret, wholeUrl } = await createWebhook(
      deps,
      callerOf(ctx),
      {
        ...(req.projectId ? { projectId: req.projectId } : {}),
        name: req.name,
        url: req.url,
        eventTypes: req.eventTypes,
        // An enum value this build does not know is a word the verb refuses, naming the field.
        ...(req.format ? { format: enumWordOf(WEBHOOK_FORMAT_WORDS, req.format) as WebhookFormat } : {}),
        ...(req.minRelevance !== undefined ? { minRelevance: req.minRelevance } : {}),
        ...(req.oncePerStory !== undefined ? { oncePerStory: req.oncePerStory } : {}),
      },
      ctx.idempotencyKey,
    );
    return { webhook: toWebhookMessage(endpoint, { wholeUrl }), secret: secret ?? "" };
  },
  getWebhook: async (req: webhookV1.GetWebhookRequest, ctx: RpcContext): Promise<webhookV1.GetWebhookResponse> => ({
    webhook: toWebhookMessage(await getWebhook(deps, callerOf(ctx), req.endpointId)),
  }),
  listWebhooks: async (req: webhookV1.ListWebhooksRequest, ctx: RpcContext): Promise<webhookV1.ListWebhooksResponse> => {
    const page = await listWebhooks(deps, callerOf(ctx), {
      ...(req.projectId ? { projectId: req.projectId } : {}),
      ...(limitOf(req.limit) !== undefined ? { limit: req.limit } : {}),
      ...(req.cursor ? { cursor: req.cursor } : {}),
    });
    return { webhooks: page.items.map((e) => toWebhookMessage(e)), nextCursor: page.nextCursor ?? "" };
  },
  updateWebhook: async (req: webhookV1.UpdateWebhookRequest, ctx: RpcContext): Promise<webhookV1.UpdateWebhookResponse> => {
    const { endpoint, secret, wholeUrl } = await updateWebhook(deps, callerOf(ctx), req.endpointId, {
      ...(req.name !== undefined ? { name: req.name } : {}),
      ...(req.url !== undefined ? { url: req.url } : {}),
      ...(req.eventTypes ? { eventTypes: req.eventTypes.eventTypes } : {}),
      ...(req.active !== undefined ? { active: req.active } : {}),
      ...(req.rotateSecret ? { rotateSecret: true } : {}),
      ...(req.minRelevance !== undefined ? { minRelevance: req.minRelevance } : {}),
      ...(req.oncePerStory !== undefined ? { oncePerStory: req.oncePerStory } : {}),
    });
    return { webhook: toWebhookMessage(endpoint, { wholeUrl }), secret: secret ?? "" };
  },
  deleteWebhook: async (req: webhookV1.DeleteWebhookRequest, ctx: RpcContext): Promise<webhookV1.DeleteWebhookResponse> => ({
    webhook: toWebhookMessage(await deleteWebhook(deps, callerOf(ctx), req.endpointId)),
  }),
  testWebhook: async (req: webhookV1.TestWebhookRequest, ctx: RpcContext): Promise<webhookV1.TestWebhookResponse> => {
    const { endpoint, eventId } = await testWebhook(deps, callerOf(ctx), req.endpointId);
    return { webhook: toWebhookMessage(endpoint), eventId };
  },
  listWebhookDeliveries: async (req: webhookV1.ListWebhookDeliveriesRequest, ctx: RpcContext): Promise<webhookV1.ListWebhookDeliveriesResponse> => {
    const page = await listDeliveries(deps, callerOf(ctx), req.endpointId, {
      // An enum value this build does not know is a word the verb refuses, naming the field.
      ...(req.status ? { status: enumWordOf(DELIVERY_STATUS_WORDS, req.status) } : {}),
      ...(req.eventType ? { eventType: req.eventType } : {}),
      ...(req.since ? { since: req.since } : {}),
      ...(limitOf(req.limit) !== undefined ? { limit: req.limit } : {}),
      ...(req.cursor ? { cursor: req.cursor } : {}),
    });
    return { deliveries: page.items.map(toDeliveryMessage), nextCursor: page.nextCursor ?? "" };
  },
  getWebhookDelivery: async (req: webhookV1.GetWebhookDeliveryRequest, ctx: RpcContext): Promise<webhookV1.GetWebhookDeliveryResponse> => ({
    delivery: toDeliveryMessage(await getDelivery(deps, callerOf(ctx), req.endpointId, req.deliveryId)),
  }),
  redeliverWebhookDelivery: async (req: webhookV1.RedeliverWebhookDeliveryRequest, ctx: RpcContext): Promise<webhookV1.RedeliverWebhookDeliveryResponse> => ({
    delivery: toDeliveryMessage(await redeliver(deps, callerOf(ctx), req.endpointId, req.deliveryId)),
  }),
  getWorkspaceUsage: async (req: webhookV1.GetWorkspaceUsageRequest): Promise<webhookV1.GetWorkspaceUsageResponse> => {
    const counts = await workspaceUsage(deps, req.workspaceId);
    return { usage: { counts: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, String(v)])) } };
  },
});
