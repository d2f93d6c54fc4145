import { stageEvent, type StagedEvent } from "@earshot/platform/core";
import type { ApiKeyDoc, UserDoc } from "./store";
import { ACCOUNT_EVENTS, type ApiKeyCreated, type ApiKeyRevoked, type UserCreated, type UserDeactivated, type UserReactivated, type UserUpdated } from "@earshot/contracts/events/account";

// The account service's events: the builders its domain stages through the outbox. The catalog and the
// decoded event types are the contract layer's (`@earshot/contracts/events`), re-exported here for this
// service's own code; other services read them from the contract layer.

export * from "@earshot/contracts/events/account";

const ofUser = (user: UserDoc) => ({ key: user.workspaceId, subject: user._id });

export const userCreatedEvent = (user: UserDoc): StagedEvent<UserCreated> =>
  stageEvent(ACCOUNT_EVENTS, "user.created", ofUser(user), { userId: user._id, workspaceId: user.workspaceId, email: user.email });

export const userUpdatedEvent = (user: UserDoc, fields: string[]): StagedEvent<UserUpdated> =>
  stageEvent(ACCOUNT_EVENTS, "user.updated", ofUser(user), { userId: user._id, workspaceId: user.workspaceId, fields, name: user.name });

export const userDeactivatedEvent = (user: UserDoc): StagedEvent<UserDeactivated> =>
  stageEvent(ACCOUNT_EVENTS, "user.deactivated", ofUser(user), { userId: user._id, workspaceId: user.workspaceId });

export const userReactivatedEvent = (user: UserDoc): StagedEvent<UserReactivated> =>
  stageEvent(ACCOUNT_EVENTS, "user.reactivated", ofUser(user), { userId: user._id, workspaceId: user.workspaceId });

/** The key's secret and its hash never leave the service. */
export const apiKeyCreatedEvent = (key: ApiKeyDoc): StagedEvent<ApiKeyCreated> =>
  stageEvent(ACCOUNT_EVENTS, "api_key.created", { key: key.workspaceId, subject: key._id }, {
    keyId: key._id,
    userId: key.userId,
    scopes: [...key.scopes],
    expiresAt: key.expiresAt ? key.expiresAt.toISOString() : "",
  });

export const apiKeyRevokedEvent = (key: ApiKeyDoc): StagedEvent<ApiKeyRevoked> =>
  stageEvent(ACCOUNT_EVENTS, "api_key.revoked", { key: key.workspaceId, subject: key._id }, { keyId: key._id, userId: key.userId });
