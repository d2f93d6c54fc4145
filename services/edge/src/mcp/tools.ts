import { isWrite, type Operation } from "../catalog/operation";
import { operationInputSchema } from "../docs/openapi";
import { API_VERSION } from "../http/request-context";
import type { OperationRequest } from "../pipeline/execute";
import { splitInput } from "../pipeline/validate";

// MCP tools generated from the catalog: one tool per operation, the same input schema as REST (path,
// query and body fields in one object; writes also take idempotencyKey) and the same { data, meta }
// result. Nothing here is specific to any operation.

export const IDEMPOTENCY_KEY_PROPERTY = {
  type: "string",
  minLength: 8,
  maxLength: 128,
  description: "Makes retries safe: a repeat with the same key replays the first result for 24 h (REST: the Idempotency-Key header).",
};

export const ENVELOPE_OUTPUT_SCHEMA = {
  type: "object",
  required: ["data", "meta"],
  properties: {
    data: {},
    meta: {
      type: "object",
      required: ["requestId", "apiVersion"],
      properties: {
        requestId: { type: "string" },
        apiVersion: { type: "string", const: API_VERSION },
        nextCursor: { type: ["string", "null"] },
        limit: { type: "integer" },
      },
    },
  },
} as const;

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: "object" };
  outputSchema: typeof ENVELOPE_OUTPUT_SCHEMA;
  annotations: Operation["annotations"] & { title: string };
}

export const toolFor = (op: Operation): ToolDefinition => {
  const input = operationInputSchema(op) as { type: "object"; properties?: Record<string, unknown> };
  const inputSchema = isWrite(op) ? { ...input, properties: { ...(input.properties ?? {}), idempotencyKey: IDEMPOTENCY_KEY_PROPERTY } } : input;
  return {
    name: op.name,
    title: op.title,
    description: `${op.description} Needs the ${op.scope} scope.`,
    inputSchema: inputSchema as ToolDefinition["inputSchema"],
    outputSchema: ENVELOPE_OUTPUT_SCHEMA,
    annotations: { title: op.title, ...op.annotations },
  };
};

/** The REST request an MCP tool call stands for, so both run the same pipeline with the same fingerprint. */
export const toolCallRequest = (
  op: Operation,
  args: Record<string, unknown>,
  authorization: string | undefined,
  requestId: string,
  audience: string,
): OperationRequest => {
  const { idempotencyKey, ...rest } = args;
  const parts = splitInput(op, rest);
  let concretePath = `/api/v1${op.path}`;
  for (const [k, v] of Object.entries(parts.path)) concretePath = concretePath.replace(`:${k}`, encodeURIComponent(String(v)));
  return {
    requestId,
    authorization,
    idempotencyKey: idempotencyKey === undefined ? undefined : String(idempotencyKey),
    concretePath,
    audience,
    ...parts,
    body: op.input.body ? parts.body : undefined,
  };
};
