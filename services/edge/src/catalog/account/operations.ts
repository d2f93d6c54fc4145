import { userFields } from "@earshot/account/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { presentUser, userSchema } from "./resource";

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const accountOperations = [
  defineOperation({
    name: "get_account",
    title: "Get the account",
    description: "Returns the caller's account: display name, email, status and workspace.",
    method: "GET",
    path: "/account",
    scope: "account:read",
    tag: "Account",
    output: userSchema,
    input: {},
    successStatus: 200,
    annotations: READ,
    handler: async (_input, ctx) => {
      const res = await ctx.backends.account.getUser({ id: ctx.principal.userId });
      return { data: presentUser(res.user, res.workspace) };
    },
  }),
  defineOperation({
    name: "update_account",
    title: "Update the account",
    description: "Changes the caller's display name.",
    method: "PATCH",
    path: "/account",
    scope: "account:write",
    tag: "Account",
    output: userSchema,
    input: { body: z.object({ name: userFields.name }).strict() },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { user } = await ctx.backends.account.updateUser({ name: input.name });
      return { data: presentUser(user, undefined) };
    },
  }),
  defineOperation({
    name: "delete_account",
    title: "Deactivate the account",
    description:
      "Deactivates the caller's account: every key and token stops at once and their projects stop. Data stays recoverable by an operator. confirmation must be the word DELETE.",
    method: "DELETE",
    path: "/account",
    scope: "account:write",
    tag: "Account",
    output: userSchema,
    input: { body: z.object({ confirmation: z.literal("DELETE", { message: "must be exactly DELETE" }).describe("The word DELETE.") }).strict() },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    handler: async (input, ctx) => {
      const { user } = await ctx.backends.account.deactivateUser({ confirmation: input.confirmation });
      ctx.credentials.forgetUser(ctx.principal.userId);
      return { data: presentUser(user, undefined) };
    },
  }),
];
