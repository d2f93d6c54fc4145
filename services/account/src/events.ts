import type { StagedEvent } from "@earshot/platform";
import type { accountV1Events } from "@earshot/proto";
import type { ApiKeyDoc, UserDoc } from "./store";

// The account service's events. They go through the outbox to `earshot.account.v1` (the Outbox derives
// the topic from the service name), keyed by workspace id so one workspace's events keep their order.
// `data` is the proto JSON form (lowerCamelCase) of the message in events.proto where one exists.

export const ACCOUNT_EVENT_SOURCE = "earshot/account";

export const ACCOUNT_EVENT_TYPES = [
  "user.created",
  "user.updated",
  "user.deactivated",
  "user.reactivated",
  "api_key.created",
  "api_key.revoked",
] as const;

export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];

/** `user.updated` has no message in events.proto yet. */
export interface UserUpdatedData {
  userId: string;
  workspaceId: string;
  /** Names of the fields that changed. */
  fields: string[];
  name: string;
}

/** `api_key.created` has no message in events.proto yet. The plaintext and hash never leave the service. */
export interface ApiKeyCreatedData {
  keyId: string;
  userId: string;
  scopes: string[];
  expiresAt?: string;
}

const event = <D>(type: AccountEventType, subject: string, workspaceId: string, data: D): StagedEvent<D> => ({
  type,
  source: ACCOUNT_EVENT_SOURCE,
  subject,
  key: workspaceId,
  data,
});

export const userCreatedEvent = (user: UserDoc): StagedEvent<accountV1Events.UserCreated> =>
  event("user.created", user._id, user.workspaceId, { userId: user._id, workspaceId: user.workspaceId, email: user.email });

export const userUpdatedEvent = (user: UserDoc, fields: string[]): StagedEvent<UserUpdatedData> =>
  event("user.updated", user._id, user.workspaceId, { userId: user._id, workspaceId: user.workspaceId, fields, name: user.name });

export const userDeactivatedEvent = (user: UserDoc): StagedEvent<accountV1Events.UserDeactivated> =>
  event("user.deactivated", user._id, user.workspaceId, { userId: user._id, workspaceId: user.workspaceId });

export const userReactivatedEvent = (user: UserDoc): StagedEvent<accountV1Events.UserReactivated> =>
  event("user.reactivated", user._id, user.workspaceId, { userId: user._id, workspaceId: user.workspaceId });

export const apiKeyCreatedEvent = (key: ApiKeyDoc): StagedEvent<ApiKeyCreatedData> =>
  event("api_key.created", key._id, key.workspaceId, {
    keyId: key._id,
    userId: key.userId,
    scopes: key.scopes,
    ...(key.expiresAt ? { expiresAt: key.expiresAt.toISOString() } : {}),
  });

export const apiKeyRevokedEvent = (key: ApiKeyDoc): StagedEvent<accountV1Events.ApiKeyRevoked> =>
  event("api_key.revoked", key._id, key.workspaceId, { keyId: key._id, userId: key.userId });
