import { type CloudEvent, decodeEvent, defineEventCatalog, type EventOf } from "@earshot/platform/core";
import { accountV1Events } from "@earshot/proto";

// The account service's events (topic `earshot.account.v1`, source `earshot/account`): the catalog, each
// type's message in proto/earshot/account/v1/events.proto, and the decoded event type consumers receive,
// with its decoder. Keyed by workspace id so one workspace's events keep their order; `data` is the proto
// JSON form (lowerCamelCase) of the type's message, every field present.
// Its producer stages them with its own builders; every consumer reads the catalog from here, so no
// service depends on another to read its events.

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
