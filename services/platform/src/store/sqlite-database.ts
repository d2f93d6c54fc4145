import Database from "better-sqlite3";

// How every embedded SQLite database of Earshot is opened (the service stores, the in-process bus's log):
// one setup, so durability means the same everywhere.

/** `full`: every commit is fsynced before it resolves; `normal`: it survives a process crash, not a power cut. */
export type SqliteSync = "full" | "normal";

export const configureSqlite = (db: Database.Database, sync: SqliteSync = "full"): Database.Database => {
  db.pragma("journal_mode = WAL");
  // FULL: a commit is fsynced before it resolves, so an acknowledged write survives a power cut as well.
  // NORMAL in WAL mode: a commit is in the log (the OS has it) before it resolves, so it survives kill -9.
  db.pragma(`synchronous = ${sync === "normal" ? "NORMAL" : "FULL"}`);
  db.pragma("busy_timeout = 5000");
  return db;
};
