import type { Logger } from "../logger";
import { at, type BusLog, MemoryBusLog } from "./log";
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
//
// The log and the groups' positions live in a BusLog (log.ts): in memory by default, in SQLite in the
// data directory for the embedded default (sqlite-log.ts), where a restart resumes each group after the
// last message it handled, and a group that was stopped (or not yet subscribed again) when a message was
// published still gets it.

export interface InProcessBusOptions {
  partitions?: number;
  /**
   * Messages kept per partition in memory (beyond those a group still has to handle). A group subscribing
   * for the first time starts from the oldest of them. Unused with `log`, which keeps by its own rule.
   */
  retain?: number;
  /** Where the log and positions are kept; in memory when omitted. */
  log?: BusLog;
  /** The redelivery policy of every subscription that does not set its own. */
  redelivery?: Partial<RedeliveryPolicy>;
  /** How to wait between attempts; tests pass one that does not sleep. */
  wait?: RedeliveryWait;
  logger?: Logger;
}

interface Waiter {
  offset: number;
  resolve: () => void;
}

interface Group {
  id: string;
  /** A single-message subscription is a batch subscription of at most one message. */
  handler: BatchHandler;
  maxBatch: number;
  topics: Set<string>;
  policy: RedeliveryPolicy;
  /** Next offset to deliver, per topic and partition; saved to the log, like a committed offset. */
  positions: Map<string, number>;
  /** Publishers waiting for this group to handle an offset, per topic and partition, oldest first. */
  waiters: Map<string, Waiter[]>;
  running: Set<string>;
  stop: AbortController;
}

export class InProcessBus implements EventBus {
  readonly kind = "in-process";
  readonly metrics: WritableBusMetrics = createBusMetrics();
  private readonly partitions: number;
  private readonly wait: RedeliveryWait;
  private readonly log: BusLog;
  private readonly groups = new Map<string, Group>();
  private closed = false;

  constructor(private readonly options: InProcessBusOptions = {}) {
    this.partitions = options.partitions ?? 4;
    this.wait = options.wait ?? abortableSleep;
    this.log = options.log ?? new MemoryBusLog(options.retain ?? 10_000);
    // Never drop an entry a subscribed group still has to handle.
    this.log.protect(
      (topic, partition) =>
        Math.min(...[...this.groups.values()].filter((g) => g.topics.has(topic)).map((g) => g.positions.get(at(topic, partition)) ?? 0), Number.MAX_SAFE_INTEGER),
      () => this.groups.keys(),
    );
    resolveRedelivery(options.redelivery);
  }

  async publish(messages: BusMessage[]): Promise<void> {
    if (this.closed) throw new Error("The bus is closed.");
    const handled = this.append(messages);
    await Promise.all([this.log.durable(), ...handled]);
  }

  /** Adds the messages to their logs and starts delivering them; returns one promise per subscribed group and message. */
  private append(messages: BusMessage[]): Promise<void>[] {
    const waits: Promise<void>[] = [];
    const touched = new Set<string>();
    const appended = this.log.append(messages.map((m) => ({ ...m, partition: partitionFor(m.key, this.partitions) })));
    for (const m of appended) {
      const key = at(m.topic, m.partition);
      for (const g of this.groups.values()) {
        if (!g.topics.has(m.topic)) continue;
        let queue = g.waiters.get(key);
        if (!queue) g.waiters.set(key, (queue = []));
        const offset = Number(m.offset);
        waits.push(new Promise<void>((resolve) => (queue as Waiter[]).push({ offset, resolve })));
      }
      touched.add(key);
    }
    for (const key of touched) {
      const [topic, p] = key.split("\u0000") as [string, string];
      for (const g of this.groups.values()) if (g.topics.has(topic)) this.pump(g, topic, Number(p));
    }
    return waits;
  }

  /** Moves a group past `next - 1` and lets go of the publishers waiting for what it has now handled. */
  private advance(group: Group, topic: string, partition: number, next: number): void {
    const key = at(topic, partition);
    group.positions.set(key, next);
    this.log.savePosition(group.id, topic, partition, next);
    const queue = group.waiters.get(key);
    while (queue && queue.length > 0 && (queue[0] as Waiter).offset < next) (queue.shift() as Waiter).resolve();
  }

  private pump(group: Group, topic: string, partition: number): void {
    const key = at(topic, partition);
    if (group.running.has(key) || group.stop.signal.aborted) return;
    group.running.add(key);
    void (async () => {
      try {
        for (;;) {
          const base = this.log.base(topic, partition);
          // A position behind the log's start belongs to messages trimmed while the group was away.
          const position = Math.max(group.positions.get(key) ?? base, base);
          if (group.stop.signal.aborted || position >= this.log.head(topic, partition)) break;
          const batch = this.log.read(topic, partition, position, group.maxBatch);
          if (batch.length === 0) break;
          let settled = 0;
          const outcome = await deliverBatchWithRedelivery({
            messages: batch,
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
              const message = batch[settled] as DeliveredMessage;
              settled += 1;
              this.advance(group, topic, partition, Number(message.offset) + 1);
            },
          });
          if (outcome === "stopped") break;
        }
      } catch (err) {
        // Only the log (a dead-letter append, a read) can throw here; the message stays unhandled at the group's position.
        this.options.logger?.error({ err, group: group.id, topic, partition }, "could not deliver or dead-letter a message; the partition waits");
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
      positions: this.log.positions(options.groupId),
      waiters: new Map(),
      running: new Set(),
      stop: new AbortController(),
    };
    for (const topic of options.topics) {
      // A group new to a topic starts at the oldest retained message, so nothing published before it
      // subscribed is missed (Kafka: auto.offset.reset=earliest); with `latest`, after the retained ones.
      const start = (p: number) => (options.startFrom === "latest" ? this.log.head(topic, p) : this.log.base(topic, p));
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
    for (const [key, next] of group.positions) {
      const [topic, p] = key.split("\u0000") as [string, string];
      this.log.savePosition(group.id, topic, Number(p), next);
    }
    // Publishers waiting on this group must not hang: the message stays in the log for a later consumer.
    for (const queue of group.waiters.values()) for (const w of queue.splice(0)) w.resolve();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const g of [...this.groups.values()]) this.stopGroup(g);
    await this.log.close();
  }
}

export const createInProcessBus = (options: InProcessBusOptions = {}): InProcessBus => new InProcessBus(options);
