import { apiKeyFields, DEFAULT_KEY_NAME, userFields } from "@earshot/account/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { apiKeySchema, createdApiKeySchema, presentApiKey, presentCreatedApiKey, presentUser, usageSchema, userSchema } from "../present";
import { pageQuery, resourceId } from "../schemas";

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
  defineOperation({
    name: "get_usage",
    title: "Get plan usage",
    description:
      "Returns the workspace's plan allowances and what it uses of them, and the mentions it received this month (since the first instant of the month, UTC), which no plan limits (allowance null).",
    method: "GET",
    path: "/usage",
    scope: "usage:read",
    tag: "Account",
    output: usageSchema,
    input: {},
    successStatus: 200,
    annotations: READ,
    handler: async (_input, ctx) => {
      const workspace = { workspaceId: ctx.principal.workspaceId };
      const [account, usage, keywords, mentions, integration] = await Promise.all([
        ctx.backends.account.getUser({ id: ctx.principal.userId }),
        ctx.backends.project.getWorkspaceUsage(workspace),
        ctx.backends.keyword.getWorkspaceUsage(workspace),
        ctx.backends.mention.getWorkspaceUsage(workspace),
        ctx.backends.integration.getWorkspaceUsage(workspace),
      ]);
      const a = account.workspace?.allowances;
      return {
        data: {
          plan: account.workspace?.plan ?? "free",
          limits: {
            projects: { allowance: a?.projects ?? 0, used: usage.projects },
            seats: { allowance: a?.seats ?? 0, used: usage.seats },
            keywords: { allowance: a?.keywords ?? 0, used: keywords.keywords },
            webhookDeliveriesPerDay: { allowance: a?.webhookDeliveriesPerDay ?? 0, used: 0 },
            linkedinSyncsPerDay: { allowance: a?.linkedinSyncsPerDay ?? 0, used: integration.linkedinSyncsToday },
            // No plan limits mentions: they are counted, never refused.
            mentionsThisMonth: { allowance: null, used: Number(mentions.mentionsThisMonth) },
          },
        },
      };
    },
  }),
  defineOperation({
    name: "list_api_keys",
    title: "List API keys",
    description: "Lists the caller's API keys, newest first. Plaintext keys are never shown again.",
    method: "GET",
    path: "/api-keys",
    scope: "account:read",
    tag: "API keys",
    output: apiKeySchema,
    input: { query: pageQuery },
    successStatus: 200,
    list: true,
    annotations: READ,
    handler: async (input, ctx) => {
      const res = await ctx.backends.account.listApiKeys({ limit: input.limit, cursor: input.cursor ?? "" });
      return { data: res.apiKeys.map(presentApiKey), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "create_api_key",
    title: "Create an API key",
    description:
      "Creates an API key with some of the caller's own scopes (a key never grants a scope the caller lacks). The plaintext key is returned once, in data.key.",
    method: "POST",
    path: "/api-keys",
    scope: "account:write",
    tag: "API keys",
    sensitive: true,
    output: createdApiKeySchema,
    input: {
      body: z
        .object({
          name: apiKeyFields.name.default(DEFAULT_KEY_NAME),
          scopes: apiKeyFields.scopes,
          expiresAt: apiKeyFields.expiresAt.optional(),
        })
        .strict(),
    },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.account.createApiKey({
        userId: "",
        name: input.name,
        scopes: input.scopes,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : undefined,
        granterScopes: ctx.principal.scopes,
        operator: false,
      });
      return { data: presentCreatedApiKey(res.apiKey, res.plaintext) };
    },
  }),
  defineOperation({
    name: "revoke_api_key",
    title: "Revoke an API key",
    description: "Revokes one of the caller's API keys; it stops working within a second everywhere.",
    method: "DELETE",
    path: "/api-keys/:keyId",
    scope: "account:write",
    tag: "API keys",
    output: apiKeySchema,
    input: { path: z.object({ keyId: resourceId("The key id, e.g. key_01J…") }).strict() },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { apiKey } = await ctx.backends.account.revokeApiKey({ keyId: input.keyId });
      ctx.credentials.forgetUser(ctx.principal.userId);
      return { data: presentApiKey(apiKey) };
    },
  }),
];
