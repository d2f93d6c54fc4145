import type { FieldError } from "@earshot/platform";
import { type Operation, takesIdempotencyKey } from "../catalog/operation";
import { operationInputSchema, operationOutputSchema } from "../docs/openapi";
import type { OperationRequest } from "../pipeline/execute";
import type { RateLimitDecision } from "../pipeline/rate-limit";
import { unknownField } from "../pipeline/unknown-fields";
import { splitInput } from "../pipeline/validate";

// MCP tools generated from the catalog: one tool per operation, the same input schema as REST (path,
// query and body fields in one object; writes also take idempotencyKey) and the same { data, meta }
// result, described exactly by its outputSchema (the SDK client validates structuredContent against it;
// an isError result carries none). Nothing here is specific to any operation.

export const IDEMPOTENCY_KEY_PROPERTY = {
  type: "string",
  minLength: 8,
  maxLength: 128,
  description: "Makes retries safe: a repeat with the same key replays the first result for 24 h (REST: the Idempotency-Key header).",
};

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: "object" };
  /** The `{ data, meta }` envelope around the operation's resource, inlined (a tool schema stands alone). */
  outputSchema: Record<string, unknown> & { type: "object" };
  annotations: Operation["annotations"] & { title: string };
}

export const toolFor = (op: Operation): ToolDefinition => {
  const input = operationInputSchema(op) as { type: "object"; properties?: Record<string, unknown>; required?: string[] };
  const required = [...new Set([...(input.required ?? []), ...(op.mcpRequired ?? [])])];
  const properties = takesIdempotencyKey(op) ? { ...(input.properties ?? {}), idempotencyKey: IDEMPOTENCY_KEY_PROPERTY } : input.properties;
  const inputSchema = { ...input, ...(properties ? { properties } : {}), ...(required.length > 0 ? { required } : {}) };
  return {
    name: op.name,
    title: op.title,
    description: `${op.description} Needs the ${op.scope} scope.`,
    inputSchema: inputSchema as ToolDefinition["inputSchema"],
    outputSchema: operationOutputSchema(op) as ToolDefinition["outputSchema"],
    annotations: { title: op.title, ...op.annotations },
  };
};

export interface ToolCallContext {
  authorization: string | undefined;
  requestId: string;
  /** The resource being called (`{origin}/mcp`). */
  audience: string;
  clientAddress: string | undefined;
  /** This HTTP request's rate-limit decision: one /mcp request counts once, however many calls it carries. */
  rateLimit: RateLimitDecision | undefined;
}

/**
 * The REST request an MCP tool call stands for, so both run the same pipeline with the same fingerprint.
 * What only MCP can get wrong (the idempotencyKey's type, inputs the tool requires though REST defaults
 * them, fields of a tool whose operation has no body, which REST would never see) is not refused here
 * but handed to the pipeline as `inputErrors`: it judges them after the scope, so a key that may not use
 * the tool is refused for that before its arguments are looked at, as over REST.
 */
export const toolCallRequest = (op: Operation, args: Record<string, unknown>, ctx: ToolCallContext): OperationRequest => {
  const { idempotencyKey, ...rest } = args;
  const inputErrors: FieldError[] = [];
  if (idempotencyKey !== undefined && typeof idempotencyKey !== "string") inputErrors.push({ path: "idempotencyKey", message: "must be a string" });
  for (const name of op.mcpRequired ?? []) if (!Object.hasOwn(rest, name)) inputErrors.push({ path: name, message: "is required" });
  const parts = splitInput(op, rest);
  if (!op.input.body) for (const k of Object.keys(parts.body as object)) inputErrors.push(unknownField(op, k, "field"));
  let concretePath = `/api/v1${op.path}`;
  for (const [k, v] of Object.entries(parts.path)) concretePath = concretePath.replace(`:${k}`, encodeURIComponent(String(v)));
  return {
    requestId: ctx.requestId,
    authorization: ctx.authorization,
    idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : undefined,
    concretePath,
    audience: ctx.audience,
    ...(ctx.clientAddress !== undefined ? { clientAddress: ctx.clientAddress } : {}),
    ...(ctx.rateLimit ? { rateLimit: ctx.rateLimit } : {}),
    ...(inputErrors.length > 0 ? { inputErrors } : {}),
    ...parts,
    body: op.input.body ? parts.body : undefined,
  };
};
