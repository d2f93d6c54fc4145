import { createReadStream, createWriteStream } from "node:fs";
import { constants } from "node:fs";
import { access, mkdir, mkdtemp, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import Database from "better-sqlite3";
import { LOCK_FILE } from "../store/data-dir-lock";
import { BUS_FILE } from "../bus/sqlite-log";
import { STORE_FILE } from "../store/embedded";
import { CALL_KEY_FILES } from "../secrets/call-keys";
import { readTar, writeTarEntry } from "./tar";

// Online backup of an Earshot data directory (the embedded default): every service's SQLite store is
// snapshotted with `VACUUM INTO`, which reads the database inside one read transaction, so each snapshot is
// one consistent state while the service keeps writing (WAL lets readers and the writer go on together).
// The other files of the directory (the bootstrap credentials, the OAuth signing keys, the encryption key,
// mail files) are read whole and added as they are. Everything goes into one .tar.gz.
//
// Services are snapshotted one after the other, not at one instant: that is safe because services only
// ever agree through events, which are delivered at least once and deduplicated by event id. A service
// restored a little "behind" another receives again, from the other's outbox or its own, what it missed.

// The in-process bus's log (bus.sqlite) is the one exception to "one after the other": its positions are
// snapshotted before every service store and its messages after them all. A consumer's position then
// never runs ahead of what its store holds (it gets the rest again), and every event a producer's store
// calls published is in the log.

// The call keys are left out too: they seal nothing (a start without them makes new ones), and an archive,
// often kept elsewhere, must not let whoever holds it call the running instance's services as the operator.
const SKIPPED_FILES = new Set([LOCK_FILE, `${STORE_FILE}-wal`, `${STORE_FILE}-shm`, `${BUS_FILE}-wal`, `${BUS_FILE}-shm`, ...CALL_KEY_FILES]);
/** The copies kept when a directory of the older store was converted: not part of the live data. */
const SKIPPED_DIRS = /\.nedb(\.partial)?$/;

interface Entry {
  name: string;
  /** A snapshot file to stream, or the content read at once. */
  file?: string;
  content?: Buffer;
  mtime: Date;
}

/** A consistent copy of a live SQLite database, read in one transaction. */
const snapshotSqlite = (path: string, snapshot: string): void => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 10000");
    db.prepare("VACUUM INTO ?").run(snapshot);
  } finally {
    db.close();
  }
};

interface BusSnapshot {
  name: string;
  path: string;
  /** Taken before any service store: the positions come from here. */
  early: string;
}

const findBusLogs = async (root: string, rel: string, snapshots: string, out: BusSnapshot[]): Promise<void> => {
  for (const d of await readdir(join(root, rel), { withFileTypes: true })) {
    const name = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory() && !SKIPPED_DIRS.test(d.name)) await findBusLogs(root, name, snapshots, out);
    else if (d.isFile() && d.name === BUS_FILE) {
      const early = join(snapshots, `bus-early-${out.length}.sqlite`);
      snapshotSqlite(join(root, name), early);
      out.push({ name, path: join(root, name), early });
    }
  }
};

/** The bus log as it is now, with the positions of its early snapshot. */
const finishBusSnapshot = (bus: BusSnapshot, snapshot: string): void => {
  snapshotSqlite(bus.path, snapshot);
  const db = new Database(snapshot, { fileMustExist: true });
  try {
    db.prepare("ATTACH DATABASE ? AS early").run(bus.early);
    db.exec("BEGIN; DELETE FROM main.bus_positions; INSERT INTO main.bus_positions SELECT * FROM early.bus_positions; COMMIT; DETACH DATABASE early;");
  } finally {
    db.close();
  }
};

const collect = async (root: string, rel: string, snapshots: string, out: Entry[], stores: string[]): Promise<void> => {
  for (const d of await readdir(join(root, rel), { withFileTypes: true })) {
    const name = rel ? `${rel}/${d.name}` : d.name;
    const path = join(root, name);
    if (d.isDirectory()) {
      if (!SKIPPED_DIRS.test(d.name)) await collect(root, name, snapshots, out, stores);
    } else if (d.isFile() && !SKIPPED_FILES.has(d.name) && d.name !== BUS_FILE) {
      if (d.name === STORE_FILE) {
        const snapshot = join(snapshots, `${stores.length}.sqlite`);
        snapshotSqlite(path, snapshot);
        stores.push(rel);
        out.push({ name, file: snapshot, mtime: new Date() });
      } else {
        out.push({ name, content: await readFile(path), mtime: (await stat(path)).mtime });
      }
    }
  }
};

export interface BackupResult {
  /** The services (directories) whose store was snapshotted. */
  stores: string[];
  files: number;
  bytes: number;
}

/** Why `dataDir` cannot be backed up to `toFile`, or undefined when both are usable. */
const backupProblem = async (dataDir: string, toFile: string): Promise<string | undefined> => {
  const dir = await stat(dataDir).catch(() => undefined);
  if (!dir) return `the data directory ${dataDir} does not exist`;
  if (!dir.isDirectory()) return `${dataDir} is not a directory`;
  if ((await stat(toFile).catch(() => undefined))?.isDirectory()) return `${toFile} is a directory; name the archive file to write`;
  const parent = dirname(toFile);
  if (!(await stat(parent).catch(() => undefined))?.isDirectory()) return `the directory ${parent} to write ${toFile} in does not exist`;
  return access(parent, constants.W_OK).then(
    () => undefined,
    () => `${parent} cannot be written (permission denied)`,
  );
};

/** Writes a consistent backup of `dataDir` to `toFile` (a .tar.gz), while Earshot runs or not. */
export const backupDataDir = async (dataDir: string, toFile: string): Promise<BackupResult> => {
  const problem = await backupProblem(dataDir, toFile);
  if (problem) throw new BackupError(`Cannot back up: ${problem}. Nothing was written.`);
  const snapshots = await mkdtemp(join(tmpdir(), "earshot-backup-"));
  const partial = `${toFile}.partial`;
  try {
    const entries: Entry[] = [];
    const stores: string[] = [];
    const buses: BusSnapshot[] = [];
    await findBusLogs(dataDir, "", snapshots, buses);
    await collect(dataDir, "", snapshots, entries, stores);
    for (const [i, bus] of buses.entries()) {
      const snapshot = join(snapshots, `bus-${i}.sqlite`);
      finishBusSnapshot(bus, snapshot);
      entries.push({ name: bus.name, file: snapshot, mtime: new Date() });
    }
    const gzip = createGzip();
    const written = pipeline(gzip, createWriteStream(partial, { mode: 0o600 }));
    for (const e of entries) {
      if (e.content) await writeTarEntry(gzip, e.name, e.content.length, e.mtime, [e.content]);
      else await writeTarEntry(gzip, e.name, (await stat(e.file as string)).size, e.mtime, createReadStream(e.file as string) as AsyncIterable<Buffer>);
    }
    gzip.end(Buffer.alloc(1024));
    await written;
    await rename(partial, toFile);
    return { stores, files: entries.length, bytes: (await stat(toFile)).size };
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  } finally {
    await rm(snapshots, { recursive: true, force: true });
  }
};

const isEmptyOrMissing = async (dir: string): Promise<boolean> => {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw err;
  }
};

/** Unpacks a backup into `dataDir`, which must be empty or missing (a restore never mixes with live data). */
/** A backup or restore that cannot be done as asked (the archive is missing or not one, the directory is in use): its message says why. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupError";
  }
}

/** Why the archive cannot be read, or undefined when it is a readable file. */
const archiveProblem = async (file: string): Promise<string | undefined> => {
  try {
    if (!(await stat(file)).isFile()) return `${file} is not a file`;
    await access(file, constants.R_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? `${file} does not exist` : code === "EACCES" ? `${file} cannot be read (permission denied)` : `${file} cannot be read (${code ?? String(err)})`;
  }
};

/**
 * Unpacks a backup into an empty or missing data directory. A restore that fails (the archive missing, not
 * gzip, not a tar, cut short, or holding a path outside the directory) leaves the directory as it found it:
 * missing, or empty.
 */
export const restoreDataDir = async (fromFile: string, dataDir: string): Promise<{ stores: string[]; files: number }> => {
  const problem = await archiveProblem(fromFile);
  if (problem) throw new BackupError(`Cannot restore: ${problem}.`);
  if (!(await isEmptyOrMissing(dataDir))) throw new BackupError(`The data directory ${dataDir} is not empty; restore into an empty one.`);
  const existed = await stat(dataDir).then(
    () => true,
    () => false,
  );
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  try {
    return await unpack(fromFile, dataDir);
  } catch (err) {
    // Nothing half-restored is left for a start to take as data.
    if (existed) for (const entry of await readdir(dataDir)) await rm(join(dataDir, entry), { recursive: true, force: true });
    else await rm(dataDir, { recursive: true, force: true });
    if (err instanceof BackupError) throw err;
    const detail = (err as NodeJS.ErrnoException).code === "Z_DATA_ERROR" ? "it is not a gzip file" : err instanceof Error ? err.message : String(err);
    throw new BackupError(`Cannot restore from ${fromFile}: ${detail}. Nothing was restored.`);
  }
};

const unpack = async (fromFile: string, dataDir: string): Promise<{ stores: string[]; files: number }> => {
  const stores: string[] = [];
  let files = 0;
  await readTar(createReadStream(fromFile).pipe(createGunzip()), ({ name }) => {
    const rel = normalize(name);
    if (isAbsolute(rel) || rel.split(sep).includes("..")) throw new BackupError(`The backup holds a path outside the data directory: ${name}. Nothing was restored.`);
    const path = join(dataDir, rel);
    if (rel.endsWith(`${sep}${STORE_FILE}`)) stores.push(dirname(rel));
    files += 1;
    const handle = mkdir(dirname(path), { recursive: true, mode: 0o700 }).then(() => open(path, "wx", 0o600));
    return {
      data: async (chunk) => void (await (await handle).write(chunk)),
      end: async () => (await handle).close(),
    };
  });
  return { stores, files };
};
