import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Principal } from "../pipeline/principal";
import type { RateLimitDecision } from "../pipeline/rate-limit";
import type { RawToolCall, RequestId } from "./json-rpc-gate";

// What belongs to one POST to /mcp (the caller, its credential, the rate-limit decision), carried to the
// MCP handlers as the messages' auth info so that pooled servers hold nothing of any request.

export interface CallContext {
  principal: Principal;
  authorization: string | undefined;
  resource: string;
  clientAddress: string | undefined;
  rateLimit: RateLimitDecision;
  toolCalls: Map<RequestId, RawToolCall>;
  /** Each successful tool call's body as JSON, by request id: the answer reuses it for the structured content. */
  bodies: Map<RequestId, string>;
  /** The client's session (it initialized and sends Mcp-Session-Id); none for a stateless client. */
  sessionId?: string;
}

/** The request's context, carried to the handlers as the transport's auth info. */
export const callContextOf = (authInfo: AuthInfo | undefined): CallContext => {
  const ctx = authInfo?.extra?.earshot as CallContext | undefined;
  if (!ctx) throw new McpError(ErrorCode.InternalError, "Internal error");
  return ctx;
};
