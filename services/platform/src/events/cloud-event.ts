import type { BusMessage } from "../bus/port";
import type { Clock } from "../clock";
import { newId } from "../ids";

// Events travel as CloudEvents 1.0 JSON envelopes on Kafka topics `earshot.<domain>.v1`, keyed by project
// id so a project's events keep their order.

export interface CloudEvent<D = unknown> {
  specversion: "1.0";
  /** `evt_…`; consumers drop a second delivery of the same id. */
  id: string;
  /** The producing service, e.g. `earshot/project`. */
  source: string;
  /** `<domain>.<what happened>`, e.g. `project.created`. */
  type: string;
  /** The resource the event is about, e.g. a project id. */
  subject?: string;
  time: string;
  datacontenttype: "application/json";
  data: D;
}

export const topicForDomain = (domain: string): string => {
  if (!/^[a-z][a-z0-9_]*$/.test(domain)) throw new Error(`Bad event domain ${domain}`);
  return `earshot.${domain}.v1`;
};

export interface NewEvent<D> {
  type: string;
  source: string;
  subject?: string;
  data: D;
}

export const buildCloudEvent = <D>(input: NewEvent<D>, clock: Clock): CloudEvent<D> => {
  const now = clock.now();
  return {
    specversion: "1.0",
    id: newId("evt", now.getTime()),
    source: input.source,
    type: input.type,
    ...(input.subject ? { subject: input.subject } : {}),
    time: now.toISOString(),
    datacontenttype: "application/json",
    data: input.data,
  };
};

/** An event as the bus carries it: JSON value, and its id and type in headers (the outbox relay's form). */
export const busMessageOf = (topic: string, key: string, event: CloudEvent): BusMessage => ({
  topic,
  key,
  value: JSON.stringify(event),
  headers: { "ce-id": event.id, "ce-type": event.type, "content-type": "application/cloudevents+json" },
});

export const parseCloudEvent = (value: string): CloudEvent | null => {
  try {
    const e = JSON.parse(value) as Partial<CloudEvent>;
    return e && e.specversion === "1.0" && typeof e.id === "string" && typeof e.type === "string" ? (e as CloudEvent) : null;
  } catch {
    return null;
  }
};
