import type { DeliveredMessage, EventBus, RedeliveryPolicy, SubscribeOptions, Subscription } from "../bus/port";
import type { Clock } from "../clock";
import type { Logger } from "../logger";
import { isUniqueViolation, type Doc, type DocumentStore } from "../store/port";
import { type CloudEvent, parseCloudEvent } from "./cloud-event";
import { decodeEvent, type DomainEvent, type EventCatalog, type EventMessages } from "./event-catalog";

// Consumers see each event at least once; they record handled event ids in their own store and skip
// repeats, so handling is effectively once.

export const PROCESSED_EVENTS_COLLECTION = "processed_events";
const KEEP_PROCESSED_SECONDS = 7 * 24 * 3600;

interface ProcessedEvent extends Doc {
  processedAt: Date;
}

export interface EventConsumerOptions {
  bus: EventBus;
  /** The consumer's own store, where handled event ids are kept. */
  store: DocumentStore;
  clock: Clock;
  logger: Logger;
  groupId: string;
  topics: string[];
  /**
   * Overrides the bus's redelivery policy (by default 5 attempts, then the event goes to `<topic>.dlq`).
   * A repeat of an already handled event is skipped before the handler runs, so redelivery never handles
   * an event twice.
   */
  redelivery?: Partial<RedeliveryPolicy>;
  /** Where a new group starts (see SubscribeOptions); `earliest` unless said. */
  startFrom?: SubscribeOptions["startFrom"];
  handle: (event: CloudEvent, message: DeliveredMessage) => Promise<void>;
}

export const ensureProcessedEventIndexes = (store: DocumentStore): Promise<void> =>
  store.collection<ProcessedEvent>(PROCESSED_EVENTS_COLLECTION).ensureIndex({
    fields: { processedAt: 1 },
    expireAfterSeconds: KEEP_PROCESSED_SECONDS,
  });

export const subscribeEvents = async (options: EventConsumerOptions): Promise<Subscription> => {
  const processed = options.store.collection<ProcessedEvent>(PROCESSED_EVENTS_COLLECTION);
  await ensureProcessedEventIndexes(options.store);
  const subscribe = {
    groupId: options.groupId,
    topics: options.topics,
    ...(options.redelivery ? { redelivery: options.redelivery } : {}),
    ...(options.startFrom ? { startFrom: options.startFrom } : {}),
  };
  return options.bus.subscribe(subscribe, async (message) => {
    const event = parseCloudEvent(message.value);
    if (!event) {
      options.logger.error({ topic: message.topic, offset: message.offset }, "dropping a message that is not a CloudEvent");
      return;
    }
    const markerId = `${options.groupId}:${event.id}`;
    if (await processed.findById(markerId)) {
      options.logger.debug({ eventId: event.id }, "duplicate event skipped");
      return;
    }
    await options.handle(event, message);
    try {
      await processed.insertOne({ _id: markerId, processedAt: options.clock.now() });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  });
};

export interface EventBatchConsumerOptions extends Omit<EventConsumerOptions, "handle"> {
  /** Most events per call; the bus hands what has arrived, up to this many (see BatchSubscribeOptions). */
  maxBatch: number;
  /**
   * Handles the events of a batch not handled before, in their order (at least one). When it resolves they
   * are all recorded as handled; when it throws, the batch comes again (split into single events unless
   * the failure is transient), so it must tolerate seeing some of them twice.
   */
  handle: (events: CloudEvent[]) => Promise<void>;
}

/**
 * `subscribeEvents` for consumers that do their work for many events at once: the repeats of a batch are
 * found with one read and the batch is recorded as handled with one write.
 */
export const subscribeEventBatches = async (options: EventBatchConsumerOptions): Promise<Subscription> => {
  const processed = options.store.collection<ProcessedEvent>(PROCESSED_EVENTS_COLLECTION);
  await ensureProcessedEventIndexes(options.store);
  const markerOf = (event: CloudEvent) => `${options.groupId}:${event.id}`;
  return options.bus.subscribeBatches(
    {
      groupId: options.groupId,
      topics: options.topics,
      maxBatch: options.maxBatch,
      ...(options.redelivery ? { redelivery: options.redelivery } : {}),
      ...(options.startFrom ? { startFrom: options.startFrom } : {}),
    },
    async (messages) => {
      const byMarker = new Map<string, CloudEvent>();
      for (const message of messages) {
        const event = parseCloudEvent(message.value);
        if (!event) options.logger.error({ topic: message.topic, offset: message.offset }, "dropping a message that is not a CloudEvent");
        // A repeat inside the batch is one event.
        else if (!byMarker.has(markerOf(event))) byMarker.set(markerOf(event), event);
      }
      if (byMarker.size === 0) return;
      const seen = await processed.find({ _id: { $in: [...byMarker.keys()] } });
      for (const marker of seen) byMarker.delete(marker._id);
      if (seen.length > 0) options.logger.debug({ count: seen.length }, "duplicate events skipped");
      if (byMarker.size === 0) return;
      await options.handle([...byMarker.values()]);
      const now = options.clock.now();
      const markers = [...byMarker.keys()].map((_id) => ({ _id, processedAt: now }));
      try {
        await processed.insertMany(markers);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        // Another consumer of the group recorded some of them meanwhile (a rebalance): record the rest.
        for (const marker of markers) {
          await processed.insertOne(marker).catch((e: unknown) => {
            if (!isUniqueViolation(e)) throw e;
          });
        }
      }
    },
  );
};

interface DomainEventOptions<M extends EventMessages, K extends keyof M & string> extends Omit<EventConsumerOptions, "topics" | "handle"> {
  /** The producing domain's catalog (`@earshot/<domain>/events`): its topic, and how each type decodes. */
  events: EventCatalog<M>;
  /**
   * The types the handler wants (every type of the catalog unless said). Other events of the topic, and
   * types the catalog does not know (a newer producer's), are recorded as handled without reaching it.
   */
  types?: readonly K[];
}

export interface DomainEventConsumerOptions<M extends EventMessages, K extends keyof M & string> extends DomainEventOptions<M, K> {
  /** One event at a time, its data decoded as its type's message; narrowing on `event.type` types the data. */
  handle: (event: DomainEvent<M, K>) => Promise<void>;
}

export interface DomainEventBatchConsumerOptions<M extends EventMessages, K extends keyof M & string> extends DomainEventOptions<M, K> {
  /** Batches as `subscribeEventBatches` hands them (see there), with only the wanted types, decoded. */
  batch: { maxBatch: number; handle: (events: Array<DomainEvent<M, K>>) => Promise<void> };
}

/**
 * The one way a service consumes another domain's events: subscribes to the catalog's topic (one at a time
 * with `handle`, or in batches with `batch`) and hands over each wanted event decoded with its message, as
 * `subscribeEvents` would (each event handled once, redelivered on failure, dead-lettered after its policy).
 */
export function subscribeDomainEvents<M extends EventMessages, K extends keyof M & string = keyof M & string>(
  options: DomainEventConsumerOptions<M, K> | DomainEventBatchConsumerOptions<M, K>,
): Promise<Subscription> {
  const { events: catalog, types, ...common } = options;
  const wanted = new Set<string>(types ?? catalog.types);
  const decoded = (event: CloudEvent): DomainEvent<M, K> | undefined => {
    if (!wanted.has(event.type)) return undefined;
    return decodeEvent(catalog, event) as DomainEvent<M, K> | undefined;
  };
  const base = {
    bus: common.bus,
    store: common.store,
    clock: common.clock,
    logger: common.logger,
    groupId: common.groupId,
    topics: [catalog.topic],
    ...(common.redelivery ? { redelivery: common.redelivery } : {}),
    ...(common.startFrom ? { startFrom: common.startFrom } : {}),
  };
  if ("batch" in options) {
    const { maxBatch, handle } = options.batch;
    return subscribeEventBatches({
      ...base,
      maxBatch,
      handle: async (batch) => {
        const events = batch.map(decoded).filter((e): e is DomainEvent<M, K> => e !== undefined);
        if (events.length > 0) await handle(events);
      },
    });
  }
  const { handle } = options;
  return subscribeEvents({
    ...base,
    handle: async (event) => {
      const one = decoded(event);
      if (one) await handle(one);
    },
  });
}
