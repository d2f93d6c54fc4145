import { ALL_SCOPES } from "@earshot/account/scopes";
import type { accountV1 } from "@earshot/proto";
import { z } from "zod";
import { at, atOrNull, optionalTimestamp, required, resourceSchemas, timestamp } from "../shared/resources";

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe("The first characters of the key, to tell keys apart."),
    scopes: z.array(z.enum(ALL_SCOPES as [string, ...string[]])),
    readOnly: z.boolean(),
    createdAt: timestamp,
    expiresAt: optionalTimestamp,
    lastUsedAt: optionalTimestamp,
    revokedAt: optionalTimestamp,
  })
  .register(resourceSchemas, { id: "ApiKey" });

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().describe("The plaintext key (svc_sk_…), shown this once.") })
  .register(resourceSchemas, { id: "CreatedApiKey", description: "A new API key with its plaintext." });

export type ApiKey = z.output<typeof apiKeySchema>;
export type CreatedApiKey = z.output<typeof createdApiKeySchema>;

export const presentApiKey = (message: accountV1.ApiKey | undefined): ApiKey => {
  const k = required(message, "API key");
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    readOnly: k.scopes.every((s) => s.endsWith(":read")),
    createdAt: at(k.createdAt, "API key createdAt"),
    expiresAt: atOrNull(k.expiresAt),
    lastUsedAt: atOrNull(k.lastUsedAt),
    revokedAt: atOrNull(k.revokedAt),
  };
};

export const presentCreatedApiKey = (message: accountV1.ApiKey | undefined, plaintext: string): CreatedApiKey => ({
  ...presentApiKey(message),
  key: plaintext,
});
