import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

// A service's data directory has one owner process: a second one writing the same files would corrupt
// what the first holds in memory (its caches, its TTL sweeps, its conversion state). The lock is a file
// naming the owner's pid; a lock whose process is gone is taken over, so a crash never needs a manual step.

export const LOCK_FILE = ".lock";

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** The pid holding the directory, when it is a live process other than this one. */
export const lockHolder = async (dir: string): Promise<number | null> => {
  const held = await readFile(join(dir, LOCK_FILE), "utf8").catch(() => "");
  const pid = Number.parseInt(held, 10);
  return Number.isInteger(pid) && pid !== process.pid && pidAlive(pid) ? pid : null;
};

export const takeLock = async (dir: string): Promise<void> => {
  const pid = await lockHolder(dir);
  if (pid !== null) throw new Error(`The data directory ${dir} is in use by process ${pid}.`);
  await writeFile(join(dir, LOCK_FILE), String(process.pid));
};

export const releaseLock = (dir: string): Promise<void> => rm(join(dir, LOCK_FILE), { force: true });
