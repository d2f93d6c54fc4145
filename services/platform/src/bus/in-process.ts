import type { Logger } from "../logger";
import {
  type BusMessage,
  type DeliveredMessage,
  type EventBus,
  type MessageHandler,
  partitionFor,
  type SubscribeOptions,
  type Subscription,
} from "./port";

// The embedded default's bus. Kafka semantics on one process: topics split into partitions by key, a
// retained log per partition, consumer groups with their own positions, one message at a time per
// partition and group (so order per key holds), redelivery after a handler fails.
//
// publish() resolves only when every group subscribed at that moment has handled the message. The outbox
// relay marks an event published only after that, so an event is never lost when the process dies: the
// relay publishes it again after a restart and consumers drop the duplicate by event id.

export interface InProcessBusOptions {
  partitions?: number;
  /** Messages kept per partition for groups that subscribe later with fromBeginning. */
  retain?: number;
  /** Backoff before the first redelivery; doubles up to maxBackoffMs. */
  retryBackoffMs?: number;
  maxBackoffMs?: number;
  /** Deliveries of one message to one group before it is logged as dead and skipped. */
  maxAttempts?: number;
  logger?: Logger;
}

interface Entry {
  message: DeliveredMessage;
  /** Resolved per group when that group has handled (or given up on) the message. */
  done: Map<string, () => void>;
}

interface Group {
  id: string;
  handler: MessageHandler;
  topics: Set<string>;
  /** Next offset to deliver, per topic and partition. */
  positions: Map<string, number>;
  running: Set<string>;
  stopped: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class InProcessBus implements EventBus {
  readonly kind = "in-process";
  private readonly partitions: number;
  private readonly retain: number;
  private readonly backoff: number;
  private readonly maxBackoff: number;
  private readonly maxAttempts: number;
  private readonly logs = new Map<string, Entry[][]>();
  /** Offset of the first retained entry per topic partition. */
  private readonly bases = new Map<string, number[]>();
  private readonly groups = new Map<string, Group>();
  private closed = false;

  constructor(private readonly options: InProcessBusOptions = {}) {
    this.partitions = options.partitions ?? 4;
    this.retain = options.retain ?? 10_000;
    this.backoff = options.retryBackoffMs ?? 100;
    this.maxBackoff = options.maxBackoffMs ?? 5_000;
    this.maxAttempts = options.maxAttempts ?? 20;
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
        if (!g.stopped && g.topics.has(m.topic)) waits.push(new Promise<void>((resolve) => entry.done.set(g.id, resolve)));
      }
      entries.push(entry);
      this.trim(m.topic, partition);
      touched.add(`${m.topic}\u0000${partition}`);
    }
    for (const key of touched) {
      const [topic, p] = key.split("\u0000") as [string, string];
      for (const g of this.groups.values()) if (g.topics.has(topic)) this.pump(g, topic, Number(p));
    }
    await Promise.all(waits);
  }

  private trim(topic: string, partition: number): void {
    const entries = (this.logs.get(topic) as Entry[][])[partition] as Entry[];
    const bases = this.bases.get(topic) as number[];
    const excess = entries.length - this.retain;
    if (excess <= 0) return;
    // Never drop an entry a group still has to handle.
    const minPosition = Math.min(
      ...[...this.groups.values()].filter((g) => g.topics.has(topic)).map((g) => g.positions.get(`${topic}\u0000${partition}`) ?? 0),
      Number.MAX_SAFE_INTEGER,
    );
    const removable = Math.min(excess, Math.max(0, minPosition - (bases[partition] as number)));
    if (removable > 0) {
      entries.splice(0, removable);
      bases[partition] = (bases[partition] as number) + removable;
    }
  }

  private pump(group: Group, topic: string, partition: number): void {
    const key = `${topic}\u0000${partition}`;
    if (group.running.has(key) || group.stopped) return;
    group.running.add(key);
    void (async () => {
      try {
        for (;;) {
          const entries = (this.logs.get(topic) as Entry[][])[partition] as Entry[];
          const base = (this.bases.get(topic) as number[])[partition] as number;
          const position = group.positions.get(key) ?? base;
          const entry = entries[position - base];
          if (!entry || group.stopped) break;
          await this.deliver(group, entry);
          group.positions.set(key, position + 1);
          entry.done.get(group.id)?.();
          entry.done.delete(group.id);
        }
      } finally {
        group.running.delete(key);
      }
    })();
  }

  private async deliver(group: Group, entry: Entry): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (group.stopped) return;
      try {
        await group.handler(entry.message);
        return;
      } catch (err) {
        if (attempt >= this.maxAttempts) {
          this.options.logger?.error(
            { err, group: group.id, topic: entry.message.topic, offset: entry.message.offset },
            "message handling failed too often; skipping it",
          );
          return;
        }
        this.options.logger?.warn({ err, group: group.id, topic: entry.message.topic, attempt }, "message handling failed; redelivering");
        await sleep(Math.min(this.maxBackoff, this.backoff * 2 ** (attempt - 1)));
      }
    }
  }

  async subscribe(options: SubscribeOptions, handler: MessageHandler): Promise<Subscription> {
    if (this.closed) throw new Error("The bus is closed.");
    if (this.groups.has(options.groupId)) throw new Error(`Group ${options.groupId} already has a consumer in this process.`);
    const group: Group = { id: options.groupId, handler, topics: new Set(options.topics), positions: new Map(), running: new Set(), stopped: false };
    for (const topic of options.topics) {
      const log = this.topicLog(topic);
      const bases = this.bases.get(topic) as number[];
      log.forEach((entries, p) => {
        const start = options.fromBeginning === false ? (bases[p] as number) + entries.length : (bases[p] as number);
        group.positions.set(`${topic}\u0000${p}`, start);
      });
    }
    this.groups.set(group.id, group);
    for (const topic of options.topics) for (let p = 0; p < this.partitions; p++) this.pump(group, topic, p);
    return { stop: async () => this.stopGroup(group) };
  }

  private stopGroup(group: Group): void {
    group.stopped = true;
    this.groups.delete(group.id);
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
