import { newId } from "@earshot/platform";
import type { Operation } from "../catalog/operation";
import type { OperationResponse, Pipeline } from "../pipeline/execute";
import type { CallContext } from "./call-context";
import { toolCallRequest } from "./tools";

// An operation of the catalog run for an MCP request other than tools/call (a resource read, a listing):
// the same request a tool call with these arguments makes, through the same pipeline (scope, role,
// validation), as the POST's caller, on the POST's rate-limit decision.

export interface OperationDeps {
  pipeline: Pipeline;
  operations: readonly Operation[];
}

export const operationNamed = (deps: OperationDeps, name: string): Operation => {
  const op = deps.operations.find((o) => o.name === name);
  if (!op) throw new Error(`The catalog has no operation ${name}.`);
  return op;
};

/** Whether the caller's credential carries the scope the operation needs. */
export const mayCall = (deps: OperationDeps, name: string, ctx: CallContext): boolean => ctx.principal.scopes.includes(operationNamed(deps, name).scope);

export const callOperation = (deps: OperationDeps, name: string, args: Record<string, unknown>, ctx: CallContext): Promise<OperationResponse> => {
  const op = operationNamed(deps, name);
  return deps.pipeline.execute(
    op,
    toolCallRequest(op, args, {
      authorization: ctx.authorization,
      requestId: newId("req"),
      audience: ctx.resource,
      clientAddress: ctx.clientAddress,
      rateLimit: ctx.rateLimit,
    }),
  );
};
