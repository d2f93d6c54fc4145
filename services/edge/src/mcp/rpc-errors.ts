import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";

// JSON-RPC errors the resource and prompt handlers raise. The SDK answers an error with its own code,
// message and data; McpError would prefix the message ("MCP error -32002: …"), these keep it as written.

/** MCP's code for a resource the server does not have (or the caller may not see). */
export const RESOURCE_NOT_FOUND = -32002;

export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "JsonRpcError";
  }
}

export const resourceNotFound = (uri: string): JsonRpcError => new JsonRpcError(RESOURCE_NOT_FOUND, "Resource not found", { uri });

export const invalidParams = (message: string, data?: unknown): JsonRpcError => new JsonRpcError(ErrorCode.InvalidParams, message, data);

interface Problem {
  code?: string;
  detail?: string;
  scope?: string;
  errors?: Array<{ path: string; message: string }>;
}

/** The problem's detail with each bad field named (a validation detail alone says only that some are bad). */
const detailOf = (problem: Problem): string => {
  const detail = problem.detail ?? "The request could not be answered.";
  if (!problem.errors?.length) return detail;
  return `${detail.replace(/[.:]\s*$/, "")}: ${problem.errors.map((e) => `${e.path} ${e.message}`).join("; ")}.`;
};

/**
 * The JSON-RPC error for an operation's refusal while reading `uri` (or listing, without one). Not found
 * (a resource of a project the caller cannot see, or none at all) is MCP's "Resource not found"; a
 * missing scope names the scope; any other refusal of the request is InvalidParams with the problem's
 * detail; the server's own failures are InternalError. The problem itself travels in `data`.
 */
export const refusalOf = (response: { status: number; body: unknown }, uri?: string): JsonRpcError => {
  const problem = response.body as Problem;
  if (response.status === 404 && uri !== undefined) return resourceNotFound(uri);
  const data = { ...(uri !== undefined ? { uri } : {}), problem };
  if (problem.code === "insufficient_scope") return invalidParams(`${uri !== undefined ? `Reading ${uri}` : "This"} needs the ${problem.scope ?? "missing"} scope.`, data);
  const detail = detailOf(problem);
  if (response.status < 500) return invalidParams(detail, data);
  return new JsonRpcError(ErrorCode.InternalError, detail, data);
};
