import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { OperationResponse } from "../pipeline/execute";
import { type CallContext, callContextOf } from "./call-context";
import { callOperation, type OperationDeps } from "./operation-call";
import { listResources } from "./resource-list";
import { anyParams, paramsOf, stringParam } from "./request-params";
import { JSON_MIME_TYPE, RESOURCE_TEMPLATE_LIST } from "./resource-kinds";
import { parseResourceUri, type ResourceAddress } from "./resource-uris";
import { refusalOf, resourceNotFound } from "./rpc-errors";

// MCP resources: the projects, mentions lists and mentions a caller can see, read through the catalog's
// operations exactly as the tools read them (same pipeline: scope, project role, validation), so a
// resource's text is the REST read's { data, meta } and its access rules are the operation's. Nothing
// is read here that an operation does not read.
//
//   earshot://projects/{projectId}            get_project
//   earshot://projects/{projectId}/mentions   list_mentions { projectId }: the 20 newest (the default page)
//   earshot://views/{viewId}/mentions         get_mention_view (for its project), then list_mentions { projectId, viewId }
//   earshot://mentions/{mentionId}            get_mention

const run = async (deps: OperationDeps, uri: string, name: string, args: Record<string, unknown>, ctx: CallContext): Promise<OperationResponse> => {
  const response = await callOperation(deps, name, args, ctx);
  if (response.status >= 400) throw refusalOf(response, uri);
  return response;
};

const responseFor = (deps: OperationDeps, uri: string, address: ResourceAddress, ctx: CallContext): Promise<OperationResponse> => {
  switch (address.kind) {
    case "project":
      return run(deps, uri, "get_project", { projectId: address.projectId }, ctx);
    case "project-mentions":
      return run(deps, uri, "list_mentions", { projectId: address.projectId }, ctx);
    case "mention":
      return run(deps, uri, "get_mention", { mentionId: address.mentionId }, ctx);
    case "view-mentions":
      return (async () => {
        // list_mentions takes a view within a project: the view's own read says which (and whether the caller sees it).
        const view = await run(deps, uri, "get_mention_view", { viewId: address.viewId }, ctx);
        const { projectId } = (view.body as { data: { projectId: string } }).data;
        return run(deps, uri, "list_mentions", { projectId, viewId: address.viewId }, ctx);
      })();
  }
};

/**
 * Reads the resource `uri` names as the caller of `ctx`: its operation's { data, meta } as JSON text.
 * Throws the JSON-RPC error to answer when the URI names nothing or the caller may not read it.
 */
export const readResource = async (deps: OperationDeps, uri: string, ctx: CallContext): Promise<ReadResourceResult> => {
  const address = parseResourceUri(uri);
  if (!address) throw resourceNotFound(uri);
  const response = await responseFor(deps, uri, address, ctx);
  return { contents: [{ uri, mimeType: JSON_MIME_TYPE, text: JSON.stringify(response.body) }] };
};

/** Installs resources/list, resources/templates/list and resources/read on a server (once, when it is built). */
export const registerResources = (server: Server, deps: OperationDeps): void => {
  server.setRequestHandler(anyParams("resources/list"), (request, extra) =>
    listResources(deps, stringParam(paramsOf(request.params), "cursor", false), callContextOf(extra.authInfo)),
  );
  server.setRequestHandler(anyParams("resources/templates/list"), async () => ({ resourceTemplates: RESOURCE_TEMPLATE_LIST }));
  server.setRequestHandler(anyParams("resources/read"), (request, extra) => readResource(deps, stringParam(paramsOf(request.params), "uri", true), callContextOf(extra.authInfo)));
};
