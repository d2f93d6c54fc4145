import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

// The keys that sign gRPC calls (EARSHOT_CALLER_SIGNING_KEY, EARSHOT_OPERATOR_KEY) on one machine. A
// cluster is given them as settings; the all-in-one, when not given them, makes them once into its data
// directory (mode 0600, like bootstrap.json), so its loopback ports answer only processes that can read
// that directory: its own gateway and services, and the operator CLI run by the same account. They sign
// calls valid for a minute and seal nothing, so a lost or deleted key file costs nothing: the next start
// makes a new one.

export const CALLER_SIGNING_KEY_FILE = "caller-signing.key";
export const OPERATOR_KEY_FILE = "operator.key";

/** The key files the data directory holds, which are not data (a backup leaves them out). */
export const CALL_KEY_FILES: readonly string[] = [CALLER_SIGNING_KEY_FILE, OPERATOR_KEY_FILE];

export interface CallKeys {
  callerSigningKey: string;
  operatorKey: string;
}

/** A key file that cannot be read or holds no key: its message is one line naming the file and the way out. */
export class CallKeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CallKeyFileError";
  }
}

/** What the settings accept (32+ characters), on one line without spaces, as this module writes it. */
const KEY_LINE = /^[\x21-\x7e]{32,1024}$/;

const parseKeyFile = (path: string, text: string): string => {
  const key = text.replace(/\r?\n$/, "");
  if (!KEY_LINE.test(key)) {
    throw new CallKeyFileError(`${path} holds no key (one line of 32 or more characters without spaces); delete it and a new one is made at the next start of Earshot.`);
  }
  return key;
};

/** The key in `<dataDir>/<file>`, or undefined when there is no such file. */
export const readCallKeyFile = async (dataDir: string, file: string): Promise<string | undefined> => {
  const path = join(dataDir, file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    const hint = code === "EACCES" || code === "EPERM" ? ": run as the account that runs Earshot, which owns the data directory" : "";
    throw new CallKeyFileError(`cannot read ${path} (${code ?? (err as Error).message})${hint}.`);
  }
  return parseKeyFile(path, text);
};

/**
 * Creates the file with a new key unless it exists, then reads it. The key is written whole under another
 * name and linked into place, which fails when the file exists: two processes starting on one fresh data
 * dir end with the one key, and a crash never leaves half a key.
 */
const readOrCreate = async (dataDir: string, file: string): Promise<string> => {
  const existing = await readCallKeyFile(dataDir, file);
  if (existing !== undefined) return existing;
  const path = join(dataDir, file);
  // Hidden, like every file that is not the directory's data (a fresh-data-dir check ignores it).
  const partial = join(dataDir, `.${file}.${process.pid}.${randomBytes(4).toString("hex")}.partial`);
  try {
    // A data directory made here is its owner's alone (0700): its stores hold every account's data. One that
    // exists keeps the mode its operator gave it.
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(partial, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    await link(partial, path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CallKeyFileError(`cannot write ${path} (${code ?? (err as Error).message}): the data directory must be writable by the account that runs Earshot.`);
  } finally {
    await rm(partial, { force: true }).catch(() => undefined);
  }
  const key = await readCallKeyFile(dataDir, file);
  // Linked over nothing and still not there: something else holds the name (a link to nowhere).
  if (key === undefined) throw new CallKeyFileError(`cannot write ${path}: something that is not a file holds its name; remove it.`);
  return key;
};

/**
 * The all-in-one's call keys: each from its setting when configured (a cluster's, or an operator's
 * choice), else from its file in the data directory, made at the first start.
 */
export const resolveCallKeys = async (options: { dataDir: string; callerSigningKey?: string; operatorKey?: string }): Promise<CallKeys> => ({
  callerSigningKey: options.callerSigningKey || (await readOrCreate(options.dataDir, CALLER_SIGNING_KEY_FILE)),
  operatorKey: options.operatorKey || (await readOrCreate(options.dataDir, OPERATOR_KEY_FILE)),
});

/**
 * The keys in a data directory, for a client in another process of the same account (a benchmark, a tool)
 * to sign its calls to the all-in-one running there; a key without a file is left out.
 */
export const readCallKeys = async (dataDir: string): Promise<Partial<CallKeys>> => {
  const callerSigningKey = await readCallKeyFile(dataDir, CALLER_SIGNING_KEY_FILE);
  const operatorKey = await readCallKeyFile(dataDir, OPERATOR_KEY_FILE);
  return { ...(callerSigningKey ? { callerSigningKey } : {}), ...(operatorKey ? { operatorKey } : {}) };
};
