import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import { releaseLock, takeLock } from "../store/data-dir-lock";
import { configureSqlite, type SqliteSync, type WalSync } from "../store/sqlite-database";
import { at, type BusLog } from "./log";
import type { BusMessage, DeliveredMessage } from "./port";

// The in-process bus's log on disk, in the data directory (`<dir>/bus.sqlite`), opened like every embedded
// store (WAL, synchronous commits, one process per directory). A restart finds every partition and every
// group's position as they were, so a group resumes after the last message it handled instead of
// missing what was published before a crash or seeing the whole retained log again.
//
// - An append is one transaction, on disk when `publish` resolves (the store's group commit, see
//   store/sqlite-database.ts). The last messages of each partition are also kept in memory, so groups
//   keeping up with the log read what was just appended without a query.
// - Positions are written at most every POSITION_FLUSH_MS, in one transaction: a process killed in between
//   delivers the last few messages again (at-least-once; consumers drop repeats by event id), and a busy
//   bus does not pay a synchronous commit per handled message.
// - Retention is by age (`retainMs`): older messages are deleted once a minute, except those a subscribed
//   group still has to handle. A group's position unused for as long is forgotten too (as Kafka forgets
//   the offsets of a group gone for its retention), so groups made up per process do not pile up.

export const BUS_FILE = "bus.sqlite";
const POSITION_FLUSH_MS = 50;
const SWEEP_MS = 60 * 1000;
/** Messages per partition kept in memory after being appended. */
const TAIL = 500;

export interface SqliteBusLogOptions {
  /** The bus's own directory in the data directory. */
  dir: string;
  sync?: SqliteSync;
  /** MiB of pages the database keeps in memory (EARSHOT_STORE_CACHE_MB). */
  cacheMb?: number;
  /** How long a message is kept (the published-events retention). */
  retainMs: number;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
}

interface Row {
  topic: string;
  part: number;
  off: number;
  key: string;
  value: string;
  headers: string;
}

export class SqliteBusLog implements BusLog {
  private readonly heads = new Map<string, number>();
  private readonly bases = new Map<string, number>();
  /** The last appended messages per partition, oldest first, consecutive up to the head. */
  private readonly tails = new Map<string, DeliveredMessage[]>();
  private readonly dirty = new Map<string, { group: string; topic: string; partition: number; next: number }>();
  private flushTimer: NodeJS.Timeout | undefined;
  private dirtySince = 0;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly now: () => number;
  private pendingFrom: (topic: string, partition: number) => number = () => Number.MAX_SAFE_INTEGER;
  private subscribed: () => Iterable<string> = () => [];
  private readonly stmt: Record<"insert" | "head" | "read" | "positions" | "position" | "oldest" | "drop" | "touch" | "forget", Database.Statement>;
  private closed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly retainMs: number,
    now?: () => number,
    /** The directory whose lock this log holds, released at close. */
    private readonly lockDir?: string,
    private readonly walSync?: WalSync,
  ) {
    this.now = now ?? Date.now;
    db.exec(`CREATE TABLE IF NOT EXISTS bus_messages (topic TEXT NOT NULL, part INTEGER NOT NULL, off INTEGER NOT NULL, key TEXT NOT NULL,
               value TEXT NOT NULL, headers TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (topic, part, off)) WITHOUT ROWID;
             CREATE TABLE IF NOT EXISTS bus_partitions (topic TEXT NOT NULL, part INTEGER NOT NULL, base INTEGER NOT NULL, head INTEGER NOT NULL,
               PRIMARY KEY (topic, part)) WITHOUT ROWID;
             CREATE TABLE IF NOT EXISTS bus_positions (grp TEXT NOT NULL, topic TEXT NOT NULL, part INTEGER NOT NULL, next INTEGER NOT NULL,
               at INTEGER NOT NULL, PRIMARY KEY (grp, topic, part)) WITHOUT ROWID;`);
    this.stmt = {
      insert: db.prepare("INSERT INTO bus_messages (topic, part, off, key, value, headers, at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      head: db.prepare(
        "INSERT INTO bus_partitions (topic, part, base, head) VALUES (?, ?, ?, ?) ON CONFLICT (topic, part) DO UPDATE SET base = excluded.base, head = excluded.head",
      ),
      read: db.prepare("SELECT topic, part, off, key, value, headers FROM bus_messages WHERE topic = ? AND part = ? AND off >= ? ORDER BY off LIMIT ?"),
      positions: db.prepare("SELECT topic, part, next FROM bus_positions WHERE grp = ?"),
      position: db.prepare(
        "INSERT INTO bus_positions (grp, topic, part, next, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (grp, topic, part) DO UPDATE SET next = excluded.next, at = excluded.at",
      ),
      oldest: db.prepare("SELECT off, at FROM bus_messages WHERE topic = ? AND part = ? ORDER BY off"),
      drop: db.prepare("DELETE FROM bus_messages WHERE topic = ? AND part = ? AND off < ?"),
      touch: db.prepare("UPDATE bus_positions SET at = ? WHERE grp = ?"),
      forget: db.prepare("DELETE FROM bus_positions WHERE at < ?"),
    };
    this.loadPartitions();
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweepTimer.unref();
  }

  append(messages: Array<BusMessage & { partition: number }>): DeliveredMessage[] {
    const when = this.now();
    try {
      return this.appendIn(messages, when);
    } catch (err) {
      // The transaction rolled back: what was counted or kept in memory for it goes too.
      this.tails.clear();
      this.loadPartitions();
      throw err;
    }
  }

  private loadPartitions(): void {
    for (const p of this.db.prepare("SELECT topic, part, base, head FROM bus_partitions").all() as Array<{ topic: string; part: number; base: number; head: number }>) {
      this.bases.set(at(p.topic, p.part), p.base);
      this.heads.set(at(p.topic, p.part), p.head);
    }
  }

  private appendIn(messages: Array<BusMessage & { partition: number }>, when: number): DeliveredMessage[] {
    return this.db.transaction(() => {
      const touched = new Set<string>();
      const out = messages.map((m) => {
        const key = at(m.topic, m.partition);
        const offset = this.head(m.topic, m.partition);
        const headers = { ...(m.headers ?? {}) };
        this.stmt.insert.run(m.topic, m.partition, offset, m.key, m.value, JSON.stringify(headers), when);
        this.heads.set(key, offset + 1);
        touched.add(key);
        const message: DeliveredMessage = { topic: m.topic, key: m.key, value: m.value, headers, partition: m.partition, offset: String(offset) };
        let tail = this.tails.get(key);
        if (!tail) this.tails.set(key, (tail = []));
        tail.push(message);
        if (tail.length > TAIL) tail.splice(0, tail.length - TAIL);
        return message;
      });
      for (const key of touched) {
        const [topic, part] = key.split("\u0000") as [string, string];
        this.stmt.head.run(topic, Number(part), this.base(topic, Number(part)), this.heads.get(key));
      }
      return out;
    })();
  }

  durable(): Promise<void> {
    return this.walSync ? this.walSync.sync() : Promise.resolve();
  }

  read(topic: string, partition: number, from: number, max: number): DeliveredMessage[] {
    const tail = this.tails.get(at(topic, partition));
    const first = tail?.[0];
    if (tail && first && from >= Number(first.offset) && from >= this.base(topic, partition)) {
      const start = from - Number(first.offset);
      return tail.slice(start, start + max);
    }
    return (this.stmt.read.all(topic, partition, from, max) as Row[]).map((r) => ({
      topic: r.topic,
      key: r.key,
      value: r.value,
      headers: JSON.parse(r.headers) as Record<string, string>,
      partition: r.part,
      offset: String(r.off),
    }));
  }

  base(topic: string, partition: number): number {
    return this.bases.get(at(topic, partition)) ?? 0;
  }

  head(topic: string, partition: number): number {
    return this.heads.get(at(topic, partition)) ?? 0;
  }

  positions(group: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const p of this.stmt.positions.all(group) as Array<{ topic: string; part: number; next: number }>) out.set(at(p.topic, p.part), p.next);
    for (const d of this.dirty.values()) if (d.group === group) out.set(at(d.topic, d.partition), d.next);
    return out;
  }

  savePosition(group: string, topic: string, partition: number, next: number): void {
    if (this.closed) return;
    this.dirty.set(`${group}\u0000${at(topic, partition)}`, { group, topic, partition, next });
    if (!this.flushTimer) {
      this.dirtySince = performance.now();
      this.flushTimer = setTimeout(() => this.flush(), POSITION_FLUSH_MS);
      this.flushTimer.unref();
    } else if (performance.now() - this.dirtySince >= POSITION_FLUSH_MS) {
      // A bus kept busy by promise chains alone may not reach its timers for a long while.
      this.flush();
    }
  }

  /** Writes the positions recorded since the last flush, in one transaction. */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.dirty.size === 0) return;
    const when = this.now();
    const batch = [...this.dirty.values()];
    this.dirty.clear();
    this.db.transaction(() => {
      for (const d of batch) this.stmt.position.run(d.group, d.topic, d.partition, d.next, when);
    })();
  }

  protect(pendingFrom: (topic: string, partition: number) => number, subscribed?: () => Iterable<string>): void {
    this.pendingFrom = pendingFrom;
    if (subscribed) this.subscribed = subscribed;
  }

  /** Deletes what retention lets go: messages older than `retainMs` no subscribed group still needs, and positions unused as long. */
  sweep(): void {
    if (this.closed) return;
    this.flush();
    const cutoff = this.now() - this.retainMs;
    this.db.transaction(() => {
      for (const group of this.subscribed()) this.stmt.touch.run(this.now(), group);
      this.stmt.forget.run(cutoff);
      for (const [key, head] of this.heads) {
        const [topic, part] = key.split("\u0000") as [string, string];
        const partition = Number(part);
        const limit = Math.min(head, this.pendingFrom(topic, partition));
        // Messages are appended in time order: walk from the oldest to the first one still kept.
        let keepFrom = this.base(topic, partition);
        for (const row of this.stmt.oldest.iterate(topic, partition) as IterableIterator<{ off: number; at: number }>) {
          if (row.off >= limit || row.at >= cutoff) break;
          keepFrom = row.off + 1;
        }
        if (keepFrom > this.base(topic, partition)) {
          this.stmt.drop.run(topic, partition, keepFrom);
          this.bases.set(key, keepFrom);
          this.stmt.head.run(topic, partition, keepFrom, head);
        }
      }
    })();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    clearInterval(this.sweepTimer);
    await this.walSync?.close();
    this.db.close();
    if (this.lockDir) await releaseLock(this.lockDir);
  }
}

/** Opens the bus log in `dir` (created when missing), refusing a directory another live process holds. */
export const openSqliteBusLog = async (options: SqliteBusLogOptions): Promise<SqliteBusLog> => {
  await mkdir(options.dir, { recursive: true });
  await takeLock(options.dir);
  try {
    const db = new Database(join(options.dir, BUS_FILE));
    const walSync = configureSqlite(db, options.sync, options.cacheMb);
    const log = new SqliteBusLog(db, options.retainMs, options.now, options.dir, walSync);
    log.sweep();
    return log;
  } catch (err) {
    await releaseLock(options.dir);
    throw err;
  }
};
