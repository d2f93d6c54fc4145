import type { IncomingHttpHeaders } from "node:http";
import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { ErrorCode, InitializeRequestSchema, type JSONRPCMessage, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";

// What the MCP Streamable HTTP transport asks of a stateless server's POST before any JSON-RPC handling,
// checked in the order, and answered with the codes and messages, of the SDK's own server transport
// (`WebStandardStreamableHTTPServerTransport`), which clients have been talking to:
// - 406 unless Accept lists both application/json and text/event-stream;
// - 415 unless the Content-Type's media type is application/json;
// - 400 -32700 for a body that is no JSON, or a message the SDK's JSON-RPC schema refuses;
// - 400 -32600 for a batch over the SDK's limit, or an initialize sent with other messages;
// - 400 for an MCP-Protocol-Version the SDK does not support, on anything but initialize (which
//   negotiates the version in its parameters).

export interface PostRefusal {
  status: number;
  code: number;
  message: string;
}

export interface PostMessages {
  messages: JSONRPCMessage[];
  /** Whether a message expects a response; without one the POST is acknowledged with 202. */
  hasRequests: boolean;
}

const refusal = (status: number, code: number, message: string): PostRefusal => ({ status, code, message });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * Whether `m` is a request or notification the SDK's schema accepts unchanged, told without running it:
 * the shape every client sends. Anything else (responses, `_meta`, unusual ids) goes through the schema.
 */
const isPlainRequestOrNotification = (m: Record<string, unknown>): boolean => {
  for (const key in m) if (!MESSAGE_KEYS.has(key)) return false;
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string") return false;
  if ("id" in m && typeof m.id !== "string" && !Number.isSafeInteger(m.id)) return false;
  return m.params === undefined || (isObject(m.params) && !Object.hasOwn(m.params, "_meta"));
};

const toMessage = (raw: unknown): JSONRPCMessage | undefined => {
  if (isObject(raw) && isPlainRequestOrNotification(raw)) return raw as JSONRPCMessage;
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
};

const isInitialize = (m: JSONRPCMessage) => "method" in m && m.method === "initialize" && InitializeRequestSchema.safeParse(m).success;

/** The messages of a POST to /mcp whose body parsed to `body` (undefined when none was read), or why it is refused. */
export const readPost = (headers: IncomingHttpHeaders, body: unknown): PostMessages | PostRefusal => {
  const accept = headers.accept;
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) {
    return refusal(406, ErrorCode.ConnectionClosed, "Not Acceptable: Client must accept both application/json and text/event-stream");
  }
  if (!isJsonContentType(headers["content-type"])) return refusal(415, ErrorCode.ConnectionClosed, "Unsupported Media Type: Content-Type must be application/json");
  if (body === undefined) return refusal(400, ErrorCode.ParseError, "Parse error: Invalid JSON");
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) return refusal(400, ErrorCode.InvalidRequest, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  const messages: JSONRPCMessage[] = [];
  for (const raw of Array.isArray(body) ? body : [body]) {
    const message = toMessage(raw);
    if (message === undefined) return refusal(400, ErrorCode.ParseError, "Parse error: Invalid JSON-RPC message");
    messages.push(message);
  }
  if (messages.some(isInitialize)) {
    if (messages.length > 1) return refusal(400, ErrorCode.InvalidRequest, "Invalid Request: Only one initialization request is allowed");
  } else {
    const version = headers["mcp-protocol-version"];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
      return refusal(400, ErrorCode.ConnectionClosed, `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`);
    }
  }
  return { messages, hasRequests: messages.some((m) => "method" in m && "id" in m) };
};

export const isPostRefusal = (v: PostMessages | PostRefusal): v is PostRefusal => "status" in v;
