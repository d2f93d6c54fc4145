import type { EventBus } from "../bus/port";
import type { Clock } from "../clock";
import { buildCloudEvent, busMessageOf, type CloudEvent, type NewEvent, topicForDomain } from "../events/cloud-event";
import type { Logger } from "../logger";
import type { Doc, DocumentStore, Write } from "../store/port";
import { EFFECTS_COLLECTION, type EffectRecord, type EffectWrite, isEffectExpired, KEEP_EFFECTS_SECONDS } from "./effects";

// Transactional outbox: a state change and the events describing it are committed in one unit of work;
// a relay publishes what is pending and marks it published afterwards. A crash in between publishes the
// event again on restart (at-least-once); consumers drop the repeat by event id.

export const OUTBOX_COLLECTION = "outbox";

/** Published records are kept this long for inspection, then expire (EARSHOT_OUTBOX_RETENTION_HOURS). */
export const KEEP_PUBLISHED_SECONDS = 7 * 24 * 3600;

export interface OutboxRecord extends Doc {
  topic: string;
  key: string;
  event: CloudEvent;
  createdAt: Date;
  publishedAt?: Date;
}

export interface StagedEvent<D = unknown> extends NewEvent<D> {
  /** Ordering key; events of one project share it. */
  key: string;
}

export class Outbox {
  private readonly relays = new Set<OutboxRelay>();

  /** Events go to the topic of the owning service's domain: `earshot.<domain>.v1`. */
  private readonly topic: string;

  constructor(
    private readonly store: DocumentStore,
    private readonly clock: Clock,
    domain: string,
  ) {
    this.topic = topicForDomain(domain);
  }

  /** `keepPublishedSeconds`: how long a published event stays; changing it applies to the records already kept. */
  async ensureIndexes(keepPublishedSeconds = KEEP_PUBLISHED_SECONDS): Promise<void> {
    const c = this.store.collection<OutboxRecord>(OUTBOX_COLLECTION);
    await c.ensureIndex({ fields: { publishedAt: 1 }, expireAfterSeconds: keepPublishedSeconds });
    await this.store.collection<EffectRecord>(EFFECTS_COLLECTION).ensureIndex({ fields: { createdAt: 1 }, expireAfterSeconds: KEEP_EFFECTS_SECONDS });
  }

  /**
   * Commits the writes and the events together; returns the events as stored. With `effect`, also records
   * which resource the request with that idempotency key produced, in the same unit of work, so a re-run of
   * the request after a crash finds it (see effects.ts). A second record for one key is a UniqueViolationError
   * in the effects collection and nothing of the commit happens.
   */
  async commit(writes: Write[], events: StagedEvent[], effect?: EffectWrite): Promise<CloudEvent[]> {
    const now = this.clock.now();
    const built = events.map((e) => ({ key: e.key, event: buildCloudEvent(e, this.clock) }));
    const outboxWrites: Write[] = built.map(({ key, event }) => ({
      kind: "insert",
      collection: OUTBOX_COLLECTION,
      doc: { _id: event.id, topic: this.topic, key, event, createdAt: now } as OutboxRecord,
    }));
    // The effect follows the writes: on the embedded store a reader that finds it also finds the resource.
    const effectWrites: Write[] = [];
    if (effect) {
      const doc: EffectRecord = { _id: effect.key, resourceId: effect.resourceId, createdAt: now };
      // A record past its keep time that the store has not deleted yet is taken over, at its version.
      const replaces = effect.replaces ?? (await this.expiredEffect(effect.key, now));
      effectWrites.push(
        replaces
          ? { kind: "replace", collection: EFFECTS_COLLECTION, doc, expectedVersion: replaces._v ?? 1 }
          : { kind: "insert", collection: EFFECTS_COLLECTION, doc },
      );
    }
    await this.store.commit([...writes, ...effectWrites, ...outboxWrites]);
    for (const relay of this.relays) relay.notify();
    return built.map((b) => b.event);
  }

  /** The effect recorded for an idempotency key, if a commit with it happened (and has not expired by the clock). */
  async effectOf(key: string): Promise<EffectRecord | null> {
    const record = await this.store.collection<EffectRecord>(EFFECTS_COLLECTION).findById(key);
    return record && !isEffectExpired(record, this.clock.now()) ? record : null;
  }

  private async expiredEffect(key: string, now: Date): Promise<EffectRecord | undefined> {
    const record = await this.store.collection<EffectRecord>(EFFECTS_COLLECTION).findById(key);
    return record && isEffectExpired(record, now) ? record : undefined;
  }

  /** @internal relays register so a commit wakes them at once instead of at the next poll. */
  attach(relay: OutboxRelay): () => void {
    this.relays.add(relay);
    return () => this.relays.delete(relay);
  }
}

export interface OutboxRelayOptions {
  store: DocumentStore;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** Poll for pending events this often even without a local commit (other replicas write too). */
  pollMs?: number;
  batchSize?: number;
  outbox?: Outbox;
}

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private detach: (() => void) | undefined;
  private readonly pollMs: number;
  private readonly batchSize: number;

  constructor(private readonly options: OutboxRelayOptions) {
    this.pollMs = options.pollMs ?? 500;
    this.batchSize = options.batchSize ?? 100;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.detach = this.options.outbox?.attach(this);
    this.schedule(0);
  }

  notify(): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.flush();
    } catch (err) {
      this.options.logger.warn({ err }, "outbox relay could not publish; will retry");
    } finally {
      if (!this.stopped) this.schedule(this.pollMs);
    }
  }

  /** Publishes everything pending now; concurrent calls share one pass. */
  flush(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          while ((await this.publishBatch()) === this.batchSize);
        } while (this.again);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async publishBatch(): Promise<number> {
    const outbox = this.options.store.collection<OutboxRecord>(OUTBOX_COLLECTION);
    const pending = await outbox.find({ publishedAt: { $exists: false } }, { sort: { _id: 1 }, limit: this.batchSize });
    if (pending.length === 0) return 0;
    await this.options.bus.publish(pending.map((r) => busMessageOf(r.topic, r.key, r.event)));
    await outbox.updateMany({ _id: { $in: pending.map((r) => r._id) } }, { $set: { publishedAt: this.options.clock.now() } });
    this.options.logger.debug({ count: pending.length }, "outbox published");
    return pending.length;
  }

  /** Stops polling after publishing what is pending (the SIGTERM path). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.detach?.();
    await this.flush().catch((err: unknown) => this.options.logger.warn({ err }, "outbox flush at stop failed; events stay pending"));
  }
}
