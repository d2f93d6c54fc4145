import { apiKeyFields, DEFAULT_KEY_NAME } from "@earshot/account/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { pageQuery, resourceId } from "../shared/schemas";
import { apiKeySchema, createdApiKeySchema, presentApiKey, presentCreatedApiKey } from "./resource";

export const apiKeyOperations = [
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
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
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
    input: { path: z.object({ keyId: resourceId("key", "The key id, e.g. key_01J…") }).strict() },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { apiKey } = await ctx.backends.account.revokeApiKey({ keyId: input.keyId });
      ctx.credentials.forgetUser(ctx.principal.userId);
      return { data: presentApiKey(apiKey) };
    },
  }),
];
