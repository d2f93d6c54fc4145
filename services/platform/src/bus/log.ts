import type { BusMessage, DeliveredMessage } from "./port";

// Where the in-process bus keeps its partitions and its groups' positions: in memory (tests, and the
// default when no data directory is given) or in SQLite (the embedded default, sqlite-log.ts), so that a
// restart resumes every group where it was. The bus itself (in-process.ts) only appends, reads and moves
// positions; what is kept, and for how long, is the log's business.

/** A topic partition's key in maps: `<topic>\0<partition>`. */
export const at = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

export interface BusLog {
  /** Appends messages (their partition chosen); each gets the next offset of its partition, and is readable at once. */
  append(messages: Array<BusMessage & { partition: number }>): DeliveredMessage[];
  /** Resolves once everything appended so far is on disk (at once for a log in memory). */
  durable(): Promise<void>;
  /** Up to `max` messages of a partition from offset `from` on, in order. */
  read(topic: string, partition: number, from: number, max: number): DeliveredMessage[];
  /** Offset of the oldest retained message of a partition. */
  base(topic: string, partition: number): number;
  /** Offset the next appended message of a partition will get. */
  head(topic: string, partition: number): number;
  /** The positions a group last recorded, by `at(topic, partition)`: next offset to handle. */
  positions(group: string): Map<string, number>;
  /** Records a group's position; the log may keep the last few in memory briefly (a lost one only means a redelivery). */
  savePosition(group: string, topic: string, partition: number, next: number): void;
  /**
   * Tells the log which offsets subscribed groups still have to handle: it never drops a message at or
   * after `pendingFrom(topic, partition)`. `subscribed` names the groups subscribed now.
   */
  protect(pendingFrom: (topic: string, partition: number) => number, subscribed?: () => Iterable<string>): void;
  close(): Promise<void>;
}

/** The log in memory: `retain` messages per partition beyond those a subscribed group still has to handle. */
export class MemoryBusLog implements BusLog {
  private readonly logs = new Map<string, DeliveredMessage[]>();
  private readonly bases = new Map<string, number>();
  private readonly committed = new Map<string, Map<string, number>>();
  private pendingFrom: (topic: string, partition: number) => number = () => Number.MAX_SAFE_INTEGER;

  constructor(private readonly retain: number) {}

  private entries(topic: string, partition: number): DeliveredMessage[] {
    const key = at(topic, partition);
    let entries = this.logs.get(key);
    if (!entries) {
      entries = [];
      this.logs.set(key, entries);
      this.bases.set(key, 0);
    }
    return entries;
  }

  append(messages: Array<BusMessage & { partition: number }>): DeliveredMessage[] {
    return messages.map((m) => {
      const entries = this.entries(m.topic, m.partition);
      const message: DeliveredMessage = { ...m, headers: { ...(m.headers ?? {}) }, offset: String(this.base(m.topic, m.partition) + entries.length) };
      entries.push(message);
      this.trim(m.topic, m.partition);
      return message;
    });
  }

  private trim(topic: string, partition: number): void {
    const entries = this.entries(topic, partition);
    const base = this.base(topic, partition);
    const excess = entries.length - this.retain;
    if (excess <= 0) return;
    const removable = Math.min(excess, Math.max(0, this.pendingFrom(topic, partition) - base));
    if (removable > 0) {
      entries.splice(0, removable);
      this.bases.set(at(topic, partition), base + removable);
    }
  }

  read(topic: string, partition: number, from: number, max: number): DeliveredMessage[] {
    const start = from - this.base(topic, partition);
    return this.entries(topic, partition).slice(start, start + max);
  }

  base(topic: string, partition: number): number {
    this.entries(topic, partition);
    return this.bases.get(at(topic, partition)) as number;
  }

  head(topic: string, partition: number): number {
    return this.base(topic, partition) + this.entries(topic, partition).length;
  }

  positions(group: string): Map<string, number> {
    return new Map(this.committed.get(group) ?? []);
  }

  savePosition(group: string, topic: string, partition: number, next: number): void {
    let positions = this.committed.get(group);
    if (!positions) {
      positions = new Map();
      this.committed.set(group, positions);
    }
    positions.set(at(topic, partition), next);
  }

  durable(): Promise<void> {
    return Promise.resolve();
  }

  protect(pendingFrom: (topic: string, partition: number) => number): void {
    this.pendingFrom = pendingFrom;
  }

  async close(): Promise<void> {}
}
