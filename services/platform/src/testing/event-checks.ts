import { isDeepStrictEqual } from "node:util";
import { type Clock, systemClock } from "../clock";
import type { BusMessage } from "../bus/port";
import { buildCloudEvent, busMessageOf, type CloudEvent } from "../events/cloud-event";
import { decodeEvent, type DomainEvent, type EventCatalog, type EventMessage, type EventMessages, isEventOf } from "../events/event-catalog";

// The check every service's events test applies to what its verbs staged: each event is of a type of the
// domain's catalog, on its topic, from its source, and its data is exactly the JSON form of the type's
// message: decoding it drops nothing (no member the message lacks), adds nothing (every field is there,
// defaults included) and changes nothing (types and values as the message reads them), and the decoded
// message survives the binary encoding (numbers within their field's range).

/** What the binary round trip needs of a ts-proto message. */
interface BinaryMessage {
  encode(message: unknown): { finish(): Uint8Array };
  decode(input: Uint8Array): unknown;
}

const hasBinary = (message: unknown): message is BinaryMessage =>
  typeof (message as Partial<BinaryMessage>).encode === "function" && typeof (message as Partial<BinaryMessage>).decode === "function";

/** As JSON carries it: members whose value is undefined are gone. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

export interface StagedEventsCheck {
  /** The catalog's types that appeared. */
  covered: Set<string>;
  /** What is wrong, one line per event and problem; empty when every event is its message. */
  problems: string[];
}

export const checkStagedEvents = <M extends EventMessages>(
  catalog: EventCatalog<M>,
  /** The events as staged in the outbox, each with its topic (a test world's `events()`). */
  staged: ReadonlyArray<CloudEvent & { topic: string }>,
): StagedEventsCheck => {
  const covered = new Set<string>();
  const problems: string[] = [];
  for (const { topic, ...event } of staged) {
    const where = `${event.type} ${event.id}`;
    if (!isEventOf(catalog, event.type)) {
      problems.push(`${where}: not a type of ${catalog.topic}, so it has no message`);
      continue;
    }
    covered.add(event.type);
    if (topic !== catalog.topic) problems.push(`${where}: staged on ${topic}, not ${catalog.topic}`);
    if (event.source !== catalog.source) problems.push(`${where}: source ${event.source}, not ${catalog.source}`);
    const message = catalog.messages[event.type] as EventMessage<unknown>;
    const wire = asJson(event.data);
    const decoded = message.fromJSON(wire);
    if (!isDeepStrictEqual(asJson(decoded), wire)) {
      problems.push(`${where}: data ${JSON.stringify(wire)} is not the JSON form of its message, which reads it as ${JSON.stringify(asJson(decoded))}`);
    }
    if (hasBinary(message) && !isDeepStrictEqual(asJson(message.decode(message.encode(decoded).finish())), asJson(decoded))) {
      problems.push(`${where}: data does not survive the message's binary encoding`);
    }
  }
  return { covered, problems };
};

/**
 * An event of the catalog as its consumer receives it, for tests that hand events to a handler directly:
 * built with buildCloudEvent and decoded with its type's message, so fields left out read as the
 * message's defaults and members it lacks are dropped, as they would be on the bus.
 */
export const receivedEvent = <M extends EventMessages>(catalog: EventCatalog<M>, type: string, data: object, clock: Clock = systemClock): DomainEvent<M> => {
  const subject = ["keywordId", "groupId", "mentionId", "projectId", "userId", "keyId"].map((k) => (data as Record<string, unknown>)[k]).find((v) => typeof v === "string");
  const event = buildCloudEvent({ type, source: catalog.source, ...(typeof subject === "string" ? { subject } : {}), data: asJson(data) }, clock);
  const decoded = decodeEvent(catalog, event);
  if (!decoded) throw new Error(`${type} is not an event type of ${catalog.topic}`);
  return decoded;
};

/**
 * An event of the catalog as the bus carries it once published, for tests that feed a consumer over a
 * bus: built with buildCloudEvent, keyed by the data's project id (else its workspace id).
 */
export const publishedEvent = <M extends EventMessages>(catalog: EventCatalog<M>, type: string, data: object, clock: Clock = systemClock): BusMessage => {
  if (!isEventOf(catalog, type)) throw new Error(`${type} is not an event type of ${catalog.topic}`);
  const fields = data as Record<string, unknown>;
  const key = String(fields.projectId ?? fields.workspaceId ?? "");
  return busMessageOf(catalog.topic, key, buildCloudEvent({ type, source: catalog.source, ...(key ? { subject: key } : {}), data: asJson(data) }, clock));
};
