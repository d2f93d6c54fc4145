import {
  type FieldError,
  newId,
  notFound,
  type Page,
  pageLimit,
  runOnce,
  usageLimited,
  validationFailed,
  withCursorErrors,
  withVersionRetry,
  zodFieldErrors,
} from "@earshot/platform/core";
import type { z } from "zod";
import { renderTestMessage } from "../chat/render";
import {
  CHAT_EVENT_TYPES,
  CHAT_EVENT_TYPES_MESSAGE,
  createWebhookSchema,
  isChatEventTypes,
  isChatFormat,
  TEST_EVENT_TYPE,
  updateWebhookSchema,
  type WebhookFormat,
} from "../fields";
import { DELIVERIES, ENDPOINTS, type EndpointDoc } from "../store";
import { accessEndpointProject, loadEndpoint } from "./access";
import type { Caller, WebhookDeps } from "./deps";
import { newSecret, rotatedSecrets, sealSecret } from "./secrets";
import { deliveriesToday } from "./budget";
import { newDelivery, payloadOf } from "./delivery-doc";

// The endpoint verbs. The delivery worker reads the same endpoint documents (no copy, no event), so a
// change applies to the next attempt; a test send is a delivery written here for the worker to send.

const parseFields = <S extends z.ZodType>(schema: S, value: unknown, extra: FieldError[] = []): z.infer<S> => {
  const parsed = schema.safeParse(value);
  const errors = [...extra, ...(parsed.success ? [] : zodFieldErrors(parsed.error.issues))];
  if (errors.length > 0 || !parsed.success) throw validationFailed(errors);
  return parsed.data;
};

/**
 * The outbound rule at registration: the host resolves, every address is public (or private networks are
 * allowed), plain http only to private ones; checked again at each delivery.
 */
const checkReachable = async (deps: WebhookDeps, url: string): Promise<void> => {
  const refused = await deps.refusedUrl(url);
  if (refused) throw validationFailed([{ path: "url", message: refused }]);
};

export interface EndpointWithSecret {
  endpoint: EndpointDoc;
  /** The plaintext secret, for the answer to a create or a rotation only (never for a chat endpoint: it has none). */
  secret?: string;
  /** The URL may be answered whole: a chat endpoint's URL is its secret, shown only to whoever just gave it. */
  wholeUrl?: boolean;
}

export interface CreateWebhookInput {
  projectId?: string;
  name: string;
  url: string;
  /** Absent or empty: a chat format's default (mention.created); a standard endpoint must name some. */
  eventTypes?: string[];
  format?: WebhookFormat;
  minRelevance?: number;
  oncePerStory?: boolean;
}

export const createWebhook = async (deps: WebhookDeps, caller: Caller, input: CreateWebhookInput, effectKey?: string): Promise<EndpointWithSecret> => {
  const fields = parseFields(createWebhookSchema, {
    name: input.name,
    url: input.url,
    ...(input.eventTypes && input.eventTypes.length > 0 ? { eventTypes: input.eventTypes } : {}),
    ...(input.format ? { format: input.format } : {}),
    ...(input.minRelevance !== undefined ? { minRelevance: input.minRelevance } : {}),
    ...(input.oncePerStory !== undefined ? { oncePerStory: input.oncePerStory } : {}),
  });
  const chat = isChatFormat(fields.format);
  const workspaceId = input.projectId ? (await accessEndpointProject(caller, input.projectId, "editor")).workspaceId : caller.workspaceId;
  // A replay answers with the endpoint the first run made and its current secret (sealed, so it can).
  const replay = async (effect: { resourceId: string }): Promise<EndpointWithSecret> => {
    const endpoint = await deps.collections.endpoints.findById(effect.resourceId);
    if (!endpoint) throw notFound("Webhook");
    const sealed = endpoint.secrets[0]?.sealed;
    return { endpoint, wholeUrl: true, ...(sealed ? { secret: deps.sealer.open(sealed) } : {}) };
  };
  return runOnce(deps.outbox, effectKey, replay, async () => {
    await checkReachable(deps, fields.url);
    const now = deps.clock.now();
    // A chat endpoint is not signed: its URL is the secret.
    const secret = chat ? undefined : newSecret();
    const endpoint: EndpointDoc = {
      _id: newId("whk", now.getTime()),
      _v: 1,
      workspaceId,
      projectId: input.projectId || null,
      name: fields.name,
      url: fields.url,
      eventTypes: [...new Set(fields.eventTypes ?? CHAT_EVENT_TYPES)],
      ...(fields.format && fields.format !== "standard" ? { format: fields.format } : {}),
      ...(fields.minRelevance ? { minRelevance: fields.minRelevance } : {}),
      ...(fields.oncePerStory ? { oncePerStory: true } : {}),
      active: true,
      secrets: secret ? [sealSecret(deps, secret, now)] : [],
      dailyBudget: caller.allowances.webhookDeliveriesPerDay,
      createdAt: now,
      updatedAt: now,
    };
    await deps.outbox.commit([{ kind: "insert", collection: ENDPOINTS, doc: endpoint }], [], effectKey ? { key: effectKey, resourceId: endpoint._id } : undefined);
    return { endpoint, wholeUrl: true, ...(secret ? { secret } : {}) };
  });
};

export const getWebhook = (deps: WebhookDeps, caller: Caller, endpointId: string): Promise<EndpointDoc> => loadEndpoint(deps, caller, endpointId, "viewer");

export interface ListWebhooksInput {
  projectId?: string;
  limit?: number;
  cursor?: string;
}

/** A project's endpoints (any member), or without a project every endpoint of the caller's workspace; newest first. */
export const listWebhooks = async (deps: WebhookDeps, caller: Caller, input: ListWebhooksInput): Promise<Page<EndpointDoc>> => {
  const limit = pageLimit(input.limit);
  const filter = input.projectId ? { projectId: (await accessEndpointProject(caller, input.projectId, "viewer")).projectId } : { workspaceId: caller.workspaceId };
  return withCursorErrors(() => deps.collections.endpoints.findPage(filter, { limit, cursor: input.cursor ?? null, direction: -1 }));
};

export interface UpdateWebhookInput {
  name?: string;
  url?: string;
  eventTypes?: string[];
  active?: boolean;
  rotateSecret?: boolean;
  /** 0 removes the bound. */
  minRelevance?: number;
  oncePerStory?: boolean;
}

/** What a chat endpoint may not take: event types other than mention.created, a signing secret. */
const checkChatUpdate = (endpoint: EndpointDoc, fields: UpdateWebhookInput): void => {
  if (!isChatFormat(endpoint.format)) return;
  const errors: FieldError[] = [];
  if (fields.eventTypes !== undefined && !isChatEventTypes(fields.eventTypes)) errors.push({ path: "eventTypes", message: CHAT_EVENT_TYPES_MESSAGE });
  if (fields.rotateSecret) {
    errors.push({ path: "rotateSecret", message: `a ${endpoint.format} endpoint is not signed and has no secret: its URL is the secret; to replace it, give the endpoint a new url` });
  }
  if (errors.length > 0) throw validationFailed(errors);
};

export const updateWebhook = async (deps: WebhookDeps, caller: Caller, endpointId: string, input: UpdateWebhookInput): Promise<EndpointWithSecret> => {
  const fields = parseFields(updateWebhookSchema, input);
  if (fields.url !== undefined) await checkReachable(deps, fields.url);
  return withVersionRetry(async () => {
    const current = await loadEndpoint(deps, caller, endpointId, "editor");
    checkChatUpdate(current, fields);
    const now = deps.clock.now();
    const secret = fields.rotateSecret ? newSecret() : undefined;
    const activeChange =
      fields.active === undefined || fields.active === current.active ? {} : { active: fields.active, deactivatedReason: fields.active ? undefined : ("user" as const) };
    // Turned back on: a success is needed to prove it healthy again, but the old failure streak no longer counts.
    const { failingSince: _streak, ...rest } = current;
    const kept = fields.active === true ? rest : current;
    // 0 bounds nothing and false collapses nothing: stored as absent, as on an endpoint made without them.
    const { minRelevance: _bound, oncePerStory: _once, ...plain } = kept;
    const minRelevance = fields.minRelevance ?? kept.minRelevance;
    const oncePerStory = fields.oncePerStory ?? kept.oncePerStory;
    const next: EndpointDoc = {
      ...plain,
      ...(minRelevance ? { minRelevance } : {}),
      ...(oncePerStory ? { oncePerStory: true } : {}),
      ...(fields.name !== undefined ? { name: fields.name } : {}),
      ...(fields.url !== undefined ? { url: fields.url } : {}),
      ...(fields.eventTypes !== undefined ? { eventTypes: [...new Set(fields.eventTypes)] } : {}),
      ...activeChange,
      ...(secret ? { secrets: rotatedSecrets(current.secrets, sealSecret(deps, secret, now), now) } : {}),
      dailyBudget: current.workspaceId === caller.workspaceId ? caller.allowances.webhookDeliveriesPerDay : current.dailyBudget,
      updatedAt: now,
      _v: (current._v ?? 1) + 1,
    };
    await deps.outbox.commit([{ kind: "replace", collection: ENDPOINTS, doc: next, expectedVersion: current._v ?? 1 }], []);
    return { endpoint: next, ...(secret ? { secret } : {}), ...(fields.url !== undefined ? { wholeUrl: true } : {}) };
  });
};

/** Deletes the endpoint and its delivery log (a delivery the worker claimed meanwhile is deleted at its next claim). */
export const deleteWebhook = async (deps: WebhookDeps, caller: Caller, endpointId: string): Promise<EndpointDoc> => {
  const endpoint = await loadEndpoint(deps, caller, endpointId, "editor");
  await deps.outbox.commit([{ kind: "delete", collection: ENDPOINTS, id: endpoint._id }], []);
  await deps.collections.deliveries.deleteMany({ endpointId: endpoint._id });
  return endpoint;
};

/**
 * Queues one `webhook.test` event (signed; a test message for a chat endpoint) to exactly this endpoint. It spends the workspace's daily delivery
 * budget like any delivery, so a spent budget refuses it (402) instead of holding it.
 */
export const testWebhook = async (deps: WebhookDeps, caller: Caller, endpointId: string): Promise<{ endpoint: EndpointDoc; eventId: string }> => {
  const endpoint = await loadEndpoint(deps, caller, endpointId, "editor");
  const now = deps.clock.now();
  const allowance = endpoint.workspaceId === caller.workspaceId ? caller.allowances.webhookDeliveriesPerDay : endpoint.dailyBudget;
  if ((await deliveriesToday(deps, endpoint.workspaceId)) >= allowance) throw usageLimited("webhook_deliveries", allowance);
  const eventId = newId("evt", now.getTime());
  const body = isChatFormat(endpoint.format)
    ? renderTestMessage(endpoint.format, { endpointName: endpoint.name, projectId: endpoint.projectId, workspaceId: endpoint.workspaceId })
    : payloadOf(TEST_EVENT_TYPE, now.toISOString(), {
        endpointId: endpoint._id,
        message: "A test event sent by test_webhook. Verify its signature with the endpoint's secret.",
      });
  await deps.outbox.commit([{ kind: "insert", collection: DELIVERIES, doc: newDelivery(now, endpoint, eventId, TEST_EVENT_TYPE, body, 0) }], []);
  return { endpoint, eventId };
};
