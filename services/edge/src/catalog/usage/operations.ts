import { defineOperation } from "../operation";
import { presentUsage, usageSchema } from "./resource";
import { workspaceUsage } from "./workspace-usage";

export const usageOperations = [
  defineOperation({
    name: "get_usage",
    title: "Get plan usage",
    description:
      "Returns the workspace's plan allowances and what it uses of them, and the mentions it received this month (since the first instant of the month, UTC), which no plan limits (allowance null). A count that cannot be read right now is null with available false; the others still answer.",
    method: "GET",
    path: "/usage",
    scope: "usage:read",
    tag: "Account",
    output: usageSchema,
    input: {},
    successStatus: 200,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (_input, ctx) => {
      const [account, counts] = await Promise.all([
        ctx.backends.account.getUser({ id: ctx.principal.userId }),
        workspaceUsage(ctx.backends, ctx.principal.workspaceId, ctx.logger),
      ]);
      return { data: presentUsage(account.workspace, counts) };
    },
  }),
];
