import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { EventBus, RedeliveryPolicy, SubscribeOptions, Subscription } from "../bus/port";
import type { Clock } from "../clock";
import type { Logger } from "../logger";
import type { DocumentStore } from "../store/port";
import { type CloudEvent } from "./cloud-event";
import { subscribeDomainEvents, subscribeEventBatches } from "./consumer";
import { decodeEvent, type DomainEvent, type EventCatalog, type EventMessages } from "./event-catalog";

// A service's event consumers, declared once on its ServiceModule: which catalogs (topics) and types, the
// consumer group, one event at a time or in batches, and the handler, which receives the service's own
// domain (what its `open` returned) and the events decoded with their catalog's messages. The host
// subscribes every declared consumer once the service is open and stops them before it closes, and the
// topics a service consumes (what `earshot setup` creates, what the bus lets it subscribe to) are read
// from these declarations; so adding a consumer is one declaration, with nothing to start or stop by hand.

/** What a consumer is subscribed with: the host's bus, and the service's store (where handled events are kept), clock and logger. */
export interface ConsumerHost {
  bus: EventBus;
  store: DocumentStore;
  clock: Clock;
  logger: Logger;
}

/** Any domain's catalog: a consumer may read several, each decoding its own types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEventCatalog = EventCatalog<any>;

interface ConsumerBase {
  /** The consumer group: one per consumer, named `<service>.<what>`; its handled events are kept under it. */
  group: string;
  /** Where a new group starts: the bus's default, `earliest` (every retained event), unless said. */
  startFrom?: SubscribeOptions["startFrom"];
  redelivery?: Partial<RedeliveryPolicy>;
}

/** A declared consumer of a service whose domain is `D`; made with `consume` or `consumeBatches`. */
export interface EventConsumer<D> extends ConsumerBase {
  /** The catalogs it reads; their topics are what the service consumes. */
  readonly catalogs: ReadonlyArray<AnyEventCatalog>;
  /** Subscribes it on the host's bus with the host's store, clock and logger, handing events to `domain`. */
  subscribe(host: ConsumerHost, domain: D): Promise<Subscription>;
}

/**
 * The decoded events of several catalogs, each narrowed by its type, with `published`: the data as its
 * producer published it (JSON), for a consumer that passes it on unchanged rather than reads it.
 */
export type EventsOf<C extends ReadonlyArray<AnyEventCatalog>> = C[number] extends infer E ? (E extends EventCatalog<infer M> ? DomainEvent<M> & { readonly published: unknown } : never) : never;

interface OneByOne<D, M extends EventMessages, K extends keyof M & string> extends ConsumerBase {
  /** The types the handler wants (every type of the catalog unless said); the others are skipped as handled. */
  types?: readonly K[];
  handle(domain: D, event: DomainEvent<M, K>): Promise<void>;
}

interface InBatches<D, E> extends ConsumerBase {
  /** Types the handler wants, of any of the catalogs (all of them unless said). */
  types?: readonly string[];
  /** Most events per call: the events that arrived meanwhile, up to this many. */
  maxBatch: number;
  /** At least one event, in order; on failure the batch comes again, so some may be seen twice. */
  handle(domain: D, events: E[]): Promise<void>;
}

const decoder = (catalogs: ReadonlyArray<AnyEventCatalog>, types: readonly string[] | undefined) => {
  const wanted = types ? new Set<string>(types) : undefined;
  return (event: CloudEvent): unknown => {
    if (wanted && !wanted.has(event.type)) return undefined;
    for (const catalog of catalogs) {
      const decoded = decodeEvent(catalog, event);
      if (decoded) return { ...decoded, published: event.data };
    }
    // A type none of the catalogs knows (a newer producer's): recorded as handled, never handed over.
    return undefined;
  };
};

const subscription = (spec: ConsumerBase, catalogs: ReadonlyArray<AnyEventCatalog>, host: ConsumerHost) => ({
  bus: host.bus,
  store: host.store,
  clock: host.clock,
  logger: host.logger.child({ consumer: spec.group }),
  groupId: spec.group,
  topics: [...new Set(catalogs.map((c) => c.topic))],
  ...(spec.startFrom ? { startFrom: spec.startFrom } : {}),
  ...(spec.redelivery ? { redelivery: spec.redelivery } : {}),
});

/** A consumer of one catalog's events, one at a time, decoded and narrowed by `type`. */
export const consume = <D, M extends EventMessages, K extends keyof M & string = keyof M & string>(
  catalog: EventCatalog<M>,
  spec: OneByOne<D, M, K>,
): EventConsumer<D> => {
  const catalogs: AnyEventCatalog[] = [catalog];
  return {
    group: spec.group,
    catalogs,
    ...(spec.startFrom ? { startFrom: spec.startFrom } : {}),
    // One catalog, one event at a time: the platform's domain-event subscription decodes and filters.
    subscribe: (host, domain) =>
      subscribeDomainEvents<M, K>({
        ...subscription(spec, catalogs, host),
        events: catalog,
        ...(spec.types ? { types: spec.types } : {}),
        handle: (event) => spec.handle(domain, event),
      }),
  };
};

/** A consumer of one or more catalogs' events in batches (one commit for many events), each decoded. */
export const consumeBatches = <D, C extends ReadonlyArray<AnyEventCatalog>>(catalogs: C, spec: InBatches<D, EventsOf<C>>): EventConsumer<D> => {
  const decode = decoder(catalogs, spec.types);
  return {
    group: spec.group,
    catalogs,
    ...(spec.startFrom ? { startFrom: spec.startFrom } : {}),
    subscribe: (host, domain) =>
      subscribeEventBatches({
        ...subscription(spec, catalogs, host),
        maxBatch: spec.maxBatch,
        handle: async (batch) => {
          const events = batch.map(decode).filter((e) => e !== undefined) as Array<EventsOf<C>>;
          if (events.length > 0) await spec.handle(domain, events);
        },
      }),
  };
};

/**
 * A consumer that only notices what happens on a topic while this process runs, to wake work waiting here
 * (a long poll): every process gets a group of its own (`<group>.<host>.<pid>.<random>`, so each replica
 * sees every event), starts after what is retained, and records nothing as handled (a missed wake-up costs
 * only a wait to its deadline, and nothing is redone after a restart). `handle` is given the event's key
 * (events are keyed by project id) and must be quick: it runs in the bus's delivery path.
 */
export const watch = <D>(catalog: AnyEventCatalog, spec: { group: string; handle(domain: D, key: string): void }): EventConsumer<D> => {
  const catalogs: AnyEventCatalog[] = [catalog];
  return {
    group: spec.group,
    catalogs,
    startFrom: "latest",
    subscribe: (host, domain) =>
      host.bus.subscribe(
        { groupId: `${spec.group}.${hostname()}.${process.pid}.${randomUUID().slice(0, 8)}`, topics: [catalog.topic], startFrom: "latest" },
        async (message) => spec.handle(domain, message.key),
      ),
  };
};

/** The topics a set of declared consumers reads, sorted. */
export const topicsOf = (consumers: ReadonlyArray<Pick<EventConsumer<unknown>, "catalogs">>): string[] =>
  [...new Set(consumers.flatMap((c) => c.catalogs.map((catalog) => catalog.topic)))].sort();

/** Subscribes every consumer; when one fails, those already subscribed are stopped and the error thrown. */
export const subscribeAll = async <D>(consumers: ReadonlyArray<EventConsumer<D>>, host: ConsumerHost, domain: D): Promise<Subscription[]> => {
  const started: Subscription[] = [];
  try {
    for (const consumer of consumers) started.push(await consumer.subscribe(host, domain));
  } catch (err) {
    await Promise.all(started.map((s) => s.stop()));
    throw err;
  }
  return started;
};
