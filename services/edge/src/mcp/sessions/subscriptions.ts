import { newId } from "@earshot/platform";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Operation } from "../../catalog/operation";
import type { OperationResponse, Pipeline } from "../../pipeline/execute";
import { type CallContext, callContextOf } from "../call-context";
import { isSubscribable, parseResourceUri } from "../resource-uris";
import { toolCallRequest } from "../tools";
import type { McpSessionStore, SessionSubscription } from "./session-store";
import type { SessionStreams } from "./session-streams";

// resources/subscribe and resources/unsubscribe. A subscription belongs to a session (the client asked for
// one by initializing), names one of the two mentions resources, and is accepted only when the caller can
// read that resource now: the check runs the same operations as the tools, through the same pipeline, so a
// project of another workspace is "Resource not found" and a key without mentions:read gets the scope error.

/** MCP's code for a resource that does not exist (or that the caller may not see). */
export const RESOURCE_NOT_FOUND = -32002;

export interface McpSessions {
  store: McpSessionStore;
  streams: SessionStreams;
}

export interface SubscriptionDeps {
  sessions: McpSessions;
  pipeline: Pipeline;
  operations: readonly Operation[];
}

/** A refused operation as the MCP error a resources method answers with. */
export const problemAsMcpError = (response: OperationResponse, uri: string): McpError => {
  const problem = response.body as { detail?: string; code?: string; errors?: unknown; scope?: unknown };
  const detail = problem.detail ?? "The request was refused.";
  if (response.status === 404) return new McpError(RESOURCE_NOT_FOUND, "Resource not found", { uri });
  if (response.status === 400) return new McpError(ErrorCode.InvalidParams, detail, { uri, code: problem.code, errors: problem.errors });
  if (response.status < 500) return new McpError(ErrorCode.InvalidRequest, detail, { uri, status: response.status, code: problem.code, ...(problem.scope ? { scope: problem.scope } : {}) });
  return new McpError(ErrorCode.InternalError, detail, { uri });
};

const needSession = () =>
  new McpError(ErrorCode.InvalidRequest, "Subscriptions need a session: send initialize, then the Mcp-Session-Id header it answers with on every request.");

/** Runs one catalog operation as the caller of this MCP request, its rate-limit decision already taken. */
const runAs = async (deps: SubscriptionDeps, ctx: CallContext, name: string, args: Record<string, unknown>, uri: string): Promise<Record<string, unknown>> => {
  const op = deps.operations.find((o) => o.name === name);
  if (!op) throw new McpError(ErrorCode.InvalidParams, `This server cannot subscribe to ${uri}.`);
  const request = toolCallRequest(op, args, {
    authorization: ctx.authorization,
    requestId: newId("req"),
    audience: ctx.resource,
    clientAddress: ctx.clientAddress,
    rateLimit: ctx.rateLimit,
  });
  const response = await deps.pipeline.execute(op, request);
  if (response.status >= 400) throw problemAsMcpError(response, uri);
  return (response.body as { data: Record<string, unknown> }).data;
};

/** What `uri` subscribes to, once the caller is known to be able to read it. */
const resolve = async (deps: SubscriptionDeps, ctx: CallContext, uri: string): Promise<SessionSubscription> => {
  const address = parseResourceUri(uri);
  if (!address) throw new McpError(ErrorCode.InvalidParams, `${uri} is no Earshot resource URI.`, { uri });
  if (!isSubscribable(address)) {
    throw new McpError(ErrorCode.InvalidParams, "Only mentions resources can be subscribed to: earshot://projects/{projectId}/mentions or earshot://views/{viewId}/mentions.", { uri });
  }
  if (address.kind === "project-mentions") {
    await runAs(deps, ctx, "list_mentions", { projectId: address.projectId, limit: 1 }, uri);
    return { uri, projectId: address.projectId };
  }
  if (address.kind !== "view-mentions") throw new McpError(ErrorCode.InvalidParams, `${uri} cannot be subscribed to.`, { uri });
  const view = await runAs(deps, ctx, "get_mention_view", { viewId: address.viewId }, uri);
  const projectId = String(view.projectId);
  await runAs(deps, ctx, "list_mentions", { projectId, viewId: address.viewId, limit: 1 }, uri);
  return { uri, projectId, viewId: address.viewId };
};

const sessionOf = async (deps: SubscriptionDeps, ctx: CallContext) => {
  if (!ctx.sessionId) throw needSession();
  const session = await deps.sessions.store.find(ctx.sessionId, ctx.principal.credentialId);
  if (!session) throw needSession();
  return session;
};

/** Registers both methods on one of the endpoint's MCP servers (its capabilities must declare resources.subscribe). */
export const registerSubscriptionHandlers = (server: Server, deps: SubscriptionDeps): void => {
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const ctx = callContextOf(extra.authInfo);
    const session = await sessionOf(deps, ctx);
    const subscription = await resolve(deps, ctx, request.params.uri);
    const subscriptions = await deps.sessions.store.subscribe(session, subscription);
    // This replica buffers for the session from now on, in case the client's stream is not open yet.
    deps.sessions.streams.hold({ ...session, subscriptions }, { authorization: ctx.authorization ?? "", audience: ctx.resource, clientAddress: ctx.clientAddress });
    deps.sessions.streams.subscriptionsChanged(session._id, subscriptions);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
    const ctx = callContextOf(extra.authInfo);
    const session = await sessionOf(deps, ctx);
    const { uri } = request.params;
    if (!parseResourceUri(uri)) throw new McpError(ErrorCode.InvalidParams, `${uri} is no Earshot resource URI.`, { uri });
    const subscriptions = await deps.sessions.store.unsubscribe(session, uri);
    deps.sessions.streams.subscriptionsChanged(session._id, subscriptions);
    return {};
  });
};
