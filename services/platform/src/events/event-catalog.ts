import type { BusMessage } from "../bus/port";
import type { Clock } from "../clock";
import type { StagedEvent } from "../outbox/outbox";
import { buildCloudEvent, busMessageOf, type CloudEvent, topicForDomain } from "./cloud-event";

// A domain's events, declared once in its package's `events.ts`: the topic, the CloudEvent source, and for
// every event type the proto message (ts-proto) its data is the JSON form of. Producers stage events
// through `stageEvent` (the data must be the type's message), consumers get them decoded through
// `decodeEvent` or `subscribeDomainEvents`, and the events test of each service decodes everything it
// stages; so an event type without a message cannot be staged, and no consumer writes its own interface
// for another service's data.

/** What an event needs of its ts-proto message: reading the JSON form (unknown members are dropped). */
export interface EventMessage<T> {
  fromJSON(object: unknown): T;
}

/** Every event type of a domain and its message. */
export type EventMessages = Record<string, EventMessage<unknown>>;

export type MessageOf<M> = M extends EventMessage<infer T> ? T : never;

export interface EventCatalog<M extends EventMessages> {
  /** `earshot.<domain>.v1`. */
  readonly topic: string;
  /** The producing service's CloudEvent source, `earshot/<domain>`. */
  readonly source: string;
  readonly messages: M;
  /** The event types, in declaration order. */
  readonly types: ReadonlyArray<keyof M & string>;
}

/** The types of a catalog. */
export type EventTypeOf<C> = C extends EventCatalog<infer M> ? keyof M & string : never;

/** A CloudEvent of the catalog whose data is decoded: a union over its types, narrowed by `type`. */
export type DomainEvent<M extends EventMessages, K extends keyof M & string = keyof M & string> = {
  [T in K]: Omit<CloudEvent<MessageOf<M[T]>>, "type"> & { type: T };
}[K];

/** The decoded events of a catalog (`EventOf<typeof PROJECT_EVENTS>`), optionally of some of its types. */
export type EventOf<C, K extends EventTypeOf<C> = EventTypeOf<C>> = C extends EventCatalog<infer M> ? DomainEvent<M, K & keyof M & string> : never;

/** The data of one type of a catalog (`EventData<typeof PROJECT_EVENTS, "project.created">`). */
export type EventData<C, K extends EventTypeOf<C>> = C extends EventCatalog<infer M> ? MessageOf<M[K]> : never;

export const defineEventCatalog = <M extends EventMessages>(domain: string, messages: M): EventCatalog<M> => ({
  topic: topicForDomain(domain),
  source: `earshot/${domain}`,
  messages,
  types: Object.keys(messages) as Array<keyof M & string>,
});

export const isEventOf = <M extends EventMessages>(catalog: EventCatalog<M>, type: string): type is keyof M & string =>
  Object.prototype.hasOwnProperty.call(catalog.messages, type);

/** Where an event goes: its ordering key (the project or workspace id) and the resource it is about. */
export interface EventAddress {
  key: string;
  subject?: string;
}

/** The event the outbox stages for `type`, whose data must be that type's message. */
export const stageEvent = <M extends EventMessages, K extends keyof M & string>(
  catalog: EventCatalog<M>,
  type: K,
  address: EventAddress,
  data: MessageOf<M[K]>,
): StagedEvent<MessageOf<M[K]>> => ({
  type,
  source: catalog.source,
  ...(address.subject ? { subject: address.subject } : {}),
  key: address.key,
  data,
});

/**
 * The event with its data read as its type's message, or undefined when the catalog has no such type (an
 * event of a newer producer, or of another catalog). Members the message lacks are dropped; missing ones
 * read as the message's defaults ("" , 0, false, []), so a consumer checks what it needs by value.
 */
export const decodeEvent = <M extends EventMessages>(catalog: EventCatalog<M>, event: CloudEvent): DomainEvent<M> | undefined => {
  if (!isEventOf(catalog, event.type)) return undefined;
  const message = catalog.messages[event.type] as EventMessage<unknown>;
  return { ...event, data: message.fromJSON(event.data ?? {}) } as DomainEvent<M>;
};

/**
 * A staged event of the catalog as it reaches the bus once the outbox relay publishes it: for feeding a
 * consumer in tests without a producer's store.
 */
export const publishedEventOf = <M extends EventMessages>(catalog: EventCatalog<M>, staged: StagedEvent, clock: Clock): BusMessage =>
  busMessageOf(catalog.topic, staged.key, buildCloudEvent(staged, clock));
