import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";

// What the MCP endpoint checks in a JSON-RPC body before the SDK sees it. The SDK answers an empty
// batch with 202 (nothing to do) and reports malformed tools/call parameters as an internal error with
// its validator's dump; it also rebuilds `arguments` with its validator, which turns an own
// `__proto__` key into the object's prototype, so the unknown-field check never sees it. Here the
// tools/call parameters are kept exactly as sent (keyed by request id) for the tool handler to judge,
// and the SDK is handed parameters it can parse. The SDK also calls any body that is not a JSON-RPC
// message a parse error (-32700); JSON that parsed but is no request (no `jsonrpc: "2.0"`, no `method`)
// is an Invalid Request (-32600), as JSON-RPC 2.0 says, answered here.

export interface JsonRpcFailure {
  status: number;
  body: { jsonrpc: "2.0"; error: { code: number; message: string }; id: RequestId | null };
}

export interface RawToolCall {
  name: unknown;
  arguments: unknown;
  /** Whether `params` was an object at all. */
  paramsIsObject: boolean;
}

export type RequestId = string | number;

export interface GatedBody {
  body: unknown;
  /** tools/call parameters as sent, by JSON-RPC request id. */
  toolCalls: Map<RequestId, RawToolCall>;
}

const failure = (status: number, code: number, message: string, id: RequestId | null = null): JsonRpcFailure => ({
  status,
  body: { jsonrpc: "2.0", error: { code, message }, id },
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const isRequestId = (v: unknown): v is RequestId => typeof v === "string" || typeof v === "number";

/** What is wrong with a message that is no JSON-RPC 2.0 request, notification or response; undefined when nothing is. */
const invalidMessage = (message: unknown): string | undefined => {
  if (!isObject(message)) return "a JSON-RPC message must be an object";
  if (message.jsonrpc !== "2.0") return 'a JSON-RPC message must have "jsonrpc": "2.0"';
  if (typeof message.method === "string") return undefined;
  // A response the client sends back (to a request of the server) has an id and a result or an error.
  if (isRequestId(message.id) && ("result" in message || isObject(message.error))) return undefined;
  return 'a JSON-RPC request must have a string "method"';
};

export const gateJsonRpcBody = (body: unknown): GatedBody | JsonRpcFailure => {
  if (body === undefined) return { body, toolCalls: new Map() };
  const messages = Array.isArray(body) ? body : [body];
  if (Array.isArray(body) && body.length === 0) return failure(400, ErrorCode.InvalidRequest, "Invalid Request: an empty batch.");
  for (const [i, message] of messages.entries()) {
    const wrong = invalidMessage(message);
    if (wrong === undefined) continue;
    const where = Array.isArray(body) ? ` (message ${i + 1} of the batch)` : "";
    const id = !Array.isArray(body) && isObject(message) && isRequestId(message.id) ? message.id : null;
    return failure(400, ErrorCode.InvalidRequest, `Invalid Request: ${wrong}${where}.`, id);
  }
  const toolCalls = new Map<RequestId, RawToolCall>();
  const ids = new Set<RequestId>();
  const gated = messages.map((message) => {
    if (!isObject(message) || !isRequestId(message.id) || typeof message.method !== "string") return message;
    if (ids.has(message.id)) return undefined;
    ids.add(message.id);
    if (message.method !== "tools/call") return message;
    const params = message.params;
    toolCalls.set(message.id, {
      name: isObject(params) ? params.name : undefined,
      arguments: isObject(params) ? params.arguments : undefined,
      paramsIsObject: isObject(params),
    });
    // The handler answers from the raw parameters; these only have to get past the SDK's parser.
    const kept = isObject(params) ? params : {};
    return { ...message, params: { ...kept, name: typeof kept.name === "string" ? kept.name : "", arguments: {} } };
  });
  if (gated.includes(undefined)) return failure(400, ErrorCode.InvalidRequest, "Invalid Request: two requests in one batch share an id.");
  return { body: Array.isArray(body) ? gated : gated[0], toolCalls };
};

export const isJsonRpcFailure = (v: GatedBody | JsonRpcFailure): v is JsonRpcFailure => "status" in v;
