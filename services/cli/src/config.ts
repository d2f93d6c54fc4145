import { readFile } from "node:fs/promises";
import { join } from "node:path";

// The only file of the CLI that reads the environment. Everything else takes `env` as an argument.

export type Env = Record<string, string | undefined>;

export const readEnv = (): Env => process.env;

/** Bad usage: exit code 64 (EX_USAGE). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const DEFAULT_DATA_DIR = "./.data";

export const servicesFilePath = (env: Env): string => join(env.EARSHOT_DATA_DIR || DEFAULT_DATA_DIR, "services.json");

const ADDRESS_RE = /^\S+:\d{1,5}$/;

const checkAddress = (address: string, from: string): string => {
  if (!ADDRESS_RE.test(address)) throw new UsageError(`${from} must be host:port, not "${address}".`);
  return address;
};

/**
 * Where the account service listens: `--account-addr`, else `EARSHOT_ACCOUNT_GRPC_ADDR`, else the
 * `services.json` a running all-in-one writes into its data dir (`EARSHOT_DATA_DIR`, default ./.data).
 */
export const resolveAccountAddress = async (flag: string | undefined, env: Env): Promise<string> => {
  if (flag) return checkAddress(flag, "--account-addr");
  if (env.EARSHOT_ACCOUNT_GRPC_ADDR) return checkAddress(env.EARSHOT_ACCOUNT_GRPC_ADDR, "EARSHOT_ACCOUNT_GRPC_ADDR");
  const file = servicesFilePath(env);
  let text: string | undefined;
  try {
    text = await readFile(file, "utf8");
  } catch {
    // No file: Earshot is not running from this data dir; explained below.
  }
  if (text !== undefined) {
    let account: unknown;
    try {
      account = (JSON.parse(text) as { account?: unknown }).account;
    } catch {
      throw new UsageError(`${file} is not valid JSON; restart Earshot (make run) or pass --account-addr host:port.`);
    }
    if (typeof account === "string" && account) return checkAddress(account, `"account" in ${file}`);
    throw new UsageError(`${file} names no account service; restart Earshot (make run) or pass --account-addr host:port.`);
  }
  throw new UsageError(
    `Cannot find the account service: start Earshot (make run) so ${file} exists, or pass --account-addr host:port (or set EARSHOT_ACCOUNT_GRPC_ADDR).`,
  );
};
