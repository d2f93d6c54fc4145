import { USER_STATUS_WORDS, USER_STATUSES } from "@earshot/account/fields";
import type { accountV1 } from "@earshot/proto";
import { z } from "zod";
import { at, atOrNull, oneOf, optionalTimestamp, required, resourceSchemas, timestamp } from "../shared/resources";
import { apiWord } from "../shared/wire-enums";

export const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    status: z.enum(USER_STATUSES),
    workspace: z.object({ id: z.string(), plan: z.string().optional() }),
    createdAt: timestamp,
    updatedAt: timestamp,
    deactivatedAt: optionalTimestamp,
  })
  .register(resourceSchemas, { id: "Account", description: "The caller's account and workspace." });

export type User = z.output<typeof userSchema>;

export const presentUser = (message: accountV1.User | undefined, w: accountV1.Workspace | undefined): User => {
  const u = required(message, "user");
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    status: oneOf(USER_STATUSES, apiWord(USER_STATUS_WORDS, u.status), "user status"),
    workspace: w ? { id: w.id, plan: w.plan } : { id: u.workspaceId },
    createdAt: at(u.createdAt, "user createdAt"),
    updatedAt: at(u.updatedAt, "user updatedAt"),
    deactivatedAt: atOrNull(u.deactivatedAt),
  };
};
