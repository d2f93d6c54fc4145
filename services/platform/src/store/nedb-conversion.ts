import { cp, readdir, rename, rm, stat } from "node:fs/promises";
import type Database from "better-sqlite3";
import { NedbDataDir } from "./nedb-datafile";
import type { Doc } from "./port";

// Upgrading a data directory written by the nedb store (one `<collection>.db` file per collection, every
// document held in memory) to the SQLite store, on the first start that finds such files:
// 1. the directory is copied beside itself, to `<dir>.nedb` (through `<dir>.nedb.partial` and a rename, so a
//    copy that exists is a whole one), before anything in it changes;
// 2. the old files are read as plain files (nedb-datafile.ts), finishing any commit their journal holds, as
//    the nedb store did at every start;
// 3. each collection is copied into SQLite in one transaction that also records it as converted, so an
//    interrupted conversion resumes with the collections it had not finished;
// 4. the old files are removed. Indexes are not copied: every service ensures its indexes at start.

const NEDB_FILE = /^(.+)\.db$/;
const NEDB_INTERNAL = new Set(["_journal", "_indexes"]);

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * What the conversion writes into: the SQLite store's own methods (embedded.ts passes itself). Stated here
 * by shape, so this file does not import the store that calls it.
 */
export interface ConversionTarget<T> {
  readonly db: Database.Database;
  transaction(work: () => void): void;
  table(name: string): T;
  insert(table: T, doc: Doc & Record<string, unknown>): void;
}

export interface ConversionHooks {
  /** Called after each collection is committed (tests interrupt a conversion here). */
  afterCollection?: (collection: string) => void;
}

/** Converts the nedb files in `dir` into `store`; does nothing when there are none. Returns the collections converted now. */
export const convertNedbDataDir = async <T>(dir: string, store: ConversionTarget<T>, hooks: ConversionHooks = {}): Promise<string[]> => {
  const files = (await readdir(dir)).filter((f) => NEDB_FILE.test(f));
  if (files.length === 0) return [];
  const copy = `${dir}.nedb`;
  if (!(await exists(copy))) {
    await rm(`${copy}.partial`, { recursive: true, force: true });
    await cp(dir, `${copy}.partial`, { recursive: true, filter: (src) => !/store\.sqlite/.test(src) && !src.endsWith(".lock") });
    await rename(`${copy}.partial`, copy);
  }
  store.db.exec("CREATE TABLE IF NOT EXISTS _converted (collection TEXT PRIMARY KEY)");
  const done = new Set((store.db.prepare("SELECT collection FROM _converted").all() as Array<{ collection: string }>).map((r) => r.collection));
  const legacy = await NedbDataDir.open(dir);
  const converted: string[] = [];
  for (const file of files.sort()) {
    const name = (NEDB_FILE.exec(file) as RegExpExecArray)[1] as string;
    if (NEDB_INTERNAL.has(name) || done.has(name)) continue;
    const docs = await legacy.documents(name);
    store.transaction(() => {
      const table = store.table(name);
      for (const doc of docs) store.insert(table, doc);
      store.db.prepare("INSERT INTO _converted (collection) VALUES (?)").run(name);
    });
    converted.push(name);
    hooks.afterCollection?.(name);
  }
  for (const file of await readdir(dir)) if (NEDB_FILE.test(file)) await rm(`${dir}/${file}`, { force: true });
  return converted;
};
