import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf, stageEvent, type StagedEvent } from "@earshot/platform/core";
import { accountV1Events } from "@earshot/proto";
import type { ApiKeyDoc, UserDoc } from "./store";

// The account service's events, published as `@earshot/account/events`: the catalog (topic
// `earshot.account.v1`, source `earshot/account`, and each type's message in events.proto), the builders
// the domain stages through the outbox, and the decoded event type consumers receive, with its decoder.
// Keyed by workspace id so one workspace's events keep their order; `data` is the proto JSON form
// (lowerCamelCase) of the type's message, every field present.

export const ACCOUNT_EVENTS = defineEventCatalog("account", {
  "user.created": accountV1Events.UserCreated,
  "user.updated": accountV1Events.UserUpdated,
  "user.deactivated": accountV1Events.UserDeactivated,
  "user.reactivated": accountV1Events.UserReactivated,
  "api_key.created": accountV1Events.ApiKeyCreated,
  "api_key.revoked": accountV1Events.ApiKeyRevoked,
});

export const ACCOUNT_TOPIC = ACCOUNT_EVENTS.topic;
export const ACCOUNT_EVENT_SOURCE = ACCOUNT_EVENTS.source;
export const ACCOUNT_EVENT_TYPES = ACCOUNT_EVENTS.types;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];
/** An account event as a consumer receives it, its data decoded; narrow on `type`. */
export type AccountEvent = EventOf<typeof ACCOUNT_EVENTS>;
/** An event of this topic read with its type's message; undefined for a type the catalog does not know. */
export const decodeAccountEvent = (event: CloudEvent): AccountEvent | undefined => decodeEvent(ACCOUNT_EVENTS, event);

export type UserCreated = accountV1Events.UserCreated;
export type UserUpdated = accountV1Events.UserUpdated;
export type UserDeactivated = accountV1Events.UserDeactivated;
export type UserReactivated = accountV1Events.UserReactivated;
export type ApiKeyCreated = accountV1Events.ApiKeyCreated;
export type ApiKeyRevoked = accountV1Events.ApiKeyRevoked;

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
