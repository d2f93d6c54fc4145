import type { DeliveredMessage, EventBus, RedeliveryPolicy, SubscribeOptions, Subscription } from "../bus/port";
import type { Clock } from "../clock";
import type { Logger } from "../logger";
import { isUniqueViolation, type Doc, type DocumentStore } from "../store/port";
import { type CloudEvent, parseCloudEvent } from "./cloud-event";

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
