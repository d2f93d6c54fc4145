import type { Logger } from "../logger";
import { createBusMetrics, type WritableBusMetrics } from "./metrics";
import {
  type BatchHandler,
  type BatchSubscribeOptions,
  type BusMessage,
  type DeliveredMessage,
  type EventBus,
  type MessageHandler,
  partitionFor,
  type RedeliveryPolicy,
  type SubscribeOptions,
  type Subscription,
} from "./port";
import { abortableSleep, checkMaxBatch, deliverBatchWithRedelivery, type RedeliveryWait, resolveRedelivery } from "./redelivery";

// The embedded default's bus. Kafka semantics on one process: topics split into partitions by key, a
// retained log per partition, consumer groups with their own positions (kept when a group stops, as Kafka
// keeps committed offsets), one message (or, for a batch subscription, one run of consecutive messages) at
// a time per partition and group (so order per key holds), and the shared redelivery policy (bounded
// retries, then `<topic>.dlq`).
//
// publish() resolves only when every group subscribed at that moment has handled the message (or
// dead-lettered it). The outbox relay marks an event published only after that, so an event is never lost
// when the process dies: the relay publishes it again after a restart and consumers drop the duplicate by
// event id.

export interface InProcessBusOptions {
  partitions?: number;
  /**
   * Messages kept per partition (beyond those a group still has to handle). A group subscribing for the
   * first time starts from the oldest of them.
   */
  retain?: number;
  /** The redelivery policy of every subscription that does not set its own. */
  redelivery?: Partial<RedeliveryPolicy>;
  /** How to wait between attempts; tests pass one that does not sleep. */
  wait?: RedeliveryWait;
  logger?: Logger;
}

interface Entry {
  message: DeliveredMessage;
  /** Resolved per group when that group has handled (or dead-lettered) the message. */
  done: Map<string, () => void>;
}

interface Group {
  id: string;
  /** A single-message subscription is a batch subscription of at most one message. */
  handler: BatchHandler;
  maxBatch: number;
  topics: Set<string>;
  policy: RedeliveryPolicy;
  /** Next offset to deliver, per topic and partition; outlives the subscription, like a committed offset. */
  positions: Map<string, number>;
  running: Set<string>;
  stop: AbortController;
}

const at = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class InProcessBus implements EventBus {
  readonly kind = "in-process";
  readonly metrics: WritableBusMetrics = createBusMetrics();
  private readonly partitions: number;
  private readonly retain: number;
  private readonly wait: RedeliveryWait;
  private readonly logs = new Map<string, Entry[][]>();
  /** Offset of the first retained entry per topic partition. */
  private readonly bases = new Map<string, number[]>();
  private readonly groups = new Map<string, Group>();
  /** Positions of groups that stopped, taken up again when the group subscribes anew. */
  private readonly committed = new Map<string, Map<string, number>>();
  private closed = false;

  constructor(private readonly options: InProcessBusOptions = {}) {
    this.partitions = options.partitions ?? 4;
    this.retain = options.retain ?? 10_000;
    this.wait = options.wait ?? abortableSleep;
    resolveRedelivery(options.redelivery);
  }

  private topicLog(topic: string): Entry[][] {
    let log = this.logs.get(topic);
    if (!log) {
      log = Array.from({ length: this.partitions }, () => []);
      this.logs.set(topic, log);
      this.bases.set(topic, Array.from({ length: this.partitions }, () => 0));
    }
    return log;
  }

  async publish(messages: BusMessage[]): Promise<void> {
    if (this.closed) throw new Error("The bus is closed.");
    await Promise.all(this.append(messages));
  }

  /** Adds the messages to their logs and starts delivering them; returns one promise per subscribed group and message. */
  private append(messages: BusMessage[]): Promise<void>[] {
    const waits: Promise<void>[] = [];
    const touched = new Set<string>();
    for (const m of messages) {
      const log = this.topicLog(m.topic);
      const partition = partitionFor(m.key, this.partitions);
      const entries = log[partition] as Entry[];
      const base = (this.bases.get(m.topic) as number[])[partition] as number;
      const entry: Entry = {
        message: { ...m, headers: { ...(m.headers ?? {}) }, partition, offset: String(base + entries.length) },
        done: new Map(),
      };
      for (const g of this.groups.values()) {
        if (g.topics.has(m.topic)) waits.push(new Promise<void>((resolve) => entry.done.set(g.id, resolve)));
      }
      entries.push(entry);
      this.trim(m.topic, partition);
      touched.add(at(m.topic, partition));
    }
    for (const key of touched) {
      const [topic, p] = key.split("\u0000") as [string, string];
      for (const g of this.groups.values()) if (g.topics.has(topic)) this.pump(g, topic, Number(p));
    }
    return waits;
  }

  private trim(topic: string, partition: number): void {
    const entries = (this.logs.get(topic) as Entry[][])[partition] as Entry[];
    const bases = this.bases.get(topic) as number[];
    const excess = entries.length - this.retain;
    if (excess <= 0) return;
    // Never drop an entry a subscribed group still has to handle.
    const minPosition = Math.min(
      ...[...this.groups.values()].filter((g) => g.topics.has(topic)).map((g) => g.positions.get(at(topic, partition)) ?? 0),
      Number.MAX_SAFE_INTEGER,
    );
    const removable = Math.min(excess, Math.max(0, minPosition - (bases[partition] as number)));
    if (removable > 0) {
      entries.splice(0, removable);
      bases[partition] = (bases[partition] as number) + removable;
    }
  }

  private pump(group: Group, topic: string, partition: number): void {
    const key = at(topic, partition);
    if (group.running.has(key) || group.stop.signal.aborted) return;
    group.running.add(key);
    void (async () => {
      try {
        for (;;) {
          const entries = (this.logs.get(topic) as Entry[][])[partition] as Entry[];
          const base = (this.bases.get(topic) as number[])[partition] as number;
          // A position behind the log's start belongs to messages trimmed while the group was away.
          const position = Math.max(group.positions.get(key) ?? base, base);
          const batch = entries.slice(position - base, position - base + group.maxBatch);
          if (batch.length === 0 || group.stop.signal.aborted) break;
          let settled = 0;
          const outcome = await deliverBatchWithRedelivery({
            messages: batch.map((e) => e.message),
            groupId: group.id,
            handler: group.handler,
            policy: group.policy,
            wait: this.wait,
            signal: group.stop.signal,
            // Not awaited past the append: the dead letter's own consumers must not hold up this partition.
            deadLetter: async (letter) => void this.append([letter]),
            metrics: this.metrics,
            ...(this.options.logger ? { logger: this.options.logger } : {}),
            settled: () => {
              const entry = batch[settled] as Entry;
              settled += 1;
              group.positions.set(key, position + settled);
              entry.done.get(group.id)?.();
              entry.done.delete(group.id);
            },
          });
          if (outcome === "stopped") break;
        }
      } catch (err) {
        // Only the dead-letter append can throw here; the message stays unhandled at the group's position.
        this.options.logger?.error({ err, group: group.id, topic, partition }, "could not dead-letter a message; the partition waits");
      } finally {
        group.running.delete(key);
      }
    })();
  }

  subscribe(options: SubscribeOptions, handler: MessageHandler): Promise<Subscription> {
    return this.subscribeBatches({ ...options, maxBatch: 1 }, (messages) => handler(messages[0] as DeliveredMessage));
  }

  async subscribeBatches(options: BatchSubscribeOptions, handler: BatchHandler): Promise<Subscription> {
    if (this.closed) throw new Error("The bus is closed.");
    if (this.groups.has(options.groupId)) throw new Error(`Group ${options.groupId} already has a consumer in this process.`);
    const group: Group = {
      id: options.groupId,
      handler,
      maxBatch: checkMaxBatch(options.maxBatch),
      topics: new Set(options.topics),
      policy: resolveRedelivery(this.options.redelivery, options.redelivery),
      positions: new Map(this.committed.get(options.groupId) ?? []),
      running: new Set(),
      stop: new AbortController(),
    };
    for (const topic of options.topics) {
      this.topicLog(topic);
      const bases = this.bases.get(topic) as number[];
      const entries = this.logs.get(topic) as Entry[][];
      // A group new to a topic starts at the oldest retained message, so nothing published before it
      // subscribed is missed (Kafka: auto.offset.reset=earliest); with `latest`, after the retained ones.
      const start = (p: number) => (bases[p] as number) + (options.startFrom === "latest" ? (entries[p] as Entry[]).length : 0);
      for (let p = 0; p < this.partitions; p++) if (!group.positions.has(at(topic, p))) group.positions.set(at(topic, p), start(p));
    }
    this.groups.set(group.id, group);
    for (const topic of options.topics) for (let p = 0; p < this.partitions; p++) this.pump(group, topic, p);
    return { stop: async () => this.stopGroup(group) };
  }

  private stopGroup(group: Group): void {
    if (this.groups.get(group.id) !== group) return;
    group.stop.abort();
    this.groups.delete(group.id);
    this.committed.set(group.id, group.positions);
    // Publishers waiting on this group must not hang: the message stays in the log for a later consumer.
    for (const topic of group.topics) {
      for (const entries of this.logs.get(topic) ?? []) {
        for (const e of entries) {
          e.done.get(group.id)?.();
          e.done.delete(group.id);
        }
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const g of [...this.groups.values()]) this.stopGroup(g);
  }
}

export const createInProcessBus = (options: InProcessBusOptions = {}): InProcessBus => new InProcessBus(options);
