import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import type Database from "better-sqlite3";

// How every embedded SQLite database of Earshot is opened (the service stores, the in-process bus's log):
// one setup, so durability means the same everywhere.
//
// Durability is a group commit. SQLite's own `synchronous=FULL` fsyncs the write-ahead log inside every
// commit, on the one thread all services of the process share: about 3 ms per commit on an ordinary disk,
// during which nothing else runs, and an import fans out into several commits per post (the mention, its
// consumers' records). Instead the database runs with `synchronous=NORMAL` (a commit is in the log, which
// the OS holds, so it survives the process being killed) and the writes that must survive a power cut too
// wait, before they are acknowledged, for one fdatasync of the log file on a worker thread, shared by every
// commit made before it started. An acknowledged write is on disk either way; the main thread never waits
// for the disk, and a burst of commits pays for one flush.

/** `full`: a write resolves once it is on disk; `normal`: once the OS has it (safe from a process crash, not a power cut). */
export type SqliteSync = "full" | "normal";

/**
 * MiB of database pages each connection keeps in memory (SQLite's own default). better-sqlite3 builds SQLite
 * with 16 MiB instead, and a cache fills as its database grows: the all-in-one's ten databases then held
 * up to 160 MiB more the longer it ran, while a page read from the OS's file cache costs microseconds.
 */
export const DEFAULT_STORE_CACHE_MB = 2;

/** Flushes a database's write-ahead log to disk for every commit made before `sync()` was called, in groups. */
export class WalSync {
  private handle: FileHandle | undefined;
  private current: Promise<void> = Promise.resolve();
  private next: Promise<void> | undefined;
  /** The flush under way, which may have begun before the latest commits. */
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly walPath: string) {}

  /** Resolves once every commit made before the call is on disk. */
  sync(): Promise<void> {
    // Commits arriving while a flush runs share the one that starts after it (it may have begun before them).
    this.next ??= this.current
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        const run = this.flush();
        this.current = run;
        this.running = run;
        const done = () => {
          if (this.running === run) this.running = undefined;
        };
        run.then(done, done);
        return run;
      });
    return this.next;
  }

  /**
   * For a read: resolves once the commits it may have seen are on disk, so nothing a caller is given can be
   * lost in a power cut; undefined when no commit is waiting for its flush (every commit asks for one).
   */
  settled(): Promise<void> | undefined {
    return this.next ?? this.running;
  }

  private async flush(): Promise<void> {
    if (this.closed) return;
    this.handle ??= await open(this.walPath, "r+");
    await this.handle.datasync();
  }

  /** Waits for the flushes under way, then lets go of the file. */
  async close(): Promise<void> {
    await (this.next ?? this.current).catch(() => undefined);
    this.closed = true;
    await this.handle?.close();
    this.handle = undefined;
  }
}

/**
 * Sets the database up (WAL, busy timeout, a page cache of `cacheMb` MiB); returns what makes its writes
 * durable under `full`, none in memory.
 */
export const configureSqlite = (db: Database.Database, sync: SqliteSync = "full", cacheMb = DEFAULT_STORE_CACHE_MB): WalSync | undefined => {
  db.pragma("journal_mode = WAL");
  // Negative: a size in KiB, whatever the page size.
  db.pragma(`cache_size = ${-Math.round(cacheMb * 1024)}`);
  // NORMAL in WAL mode: a commit is in the log (the OS has it) before it returns, so it survives kill -9;
  // the fsync FULL would add is done by WalSync, off the main thread and once per group of commits.
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  return sync === "full" && !db.memory ? new WalSync(`${db.name}-wal`) : undefined;
};
