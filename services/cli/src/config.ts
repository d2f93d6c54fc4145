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

/** The services the CLI calls. */
export type CliService = "account" | "mention" | "digest";

/**
 * Where a service listens: `--<service>-addr`, else `EARSHOT_<SERVICE>_GRPC_ADDR`, else
 * `<SERVICE>_GRPC_ADDR` (what the deployments' ConfigMap gives every pod, so the CLI run in a pod finds
 * the services), else the `services.json` a running all-in-one writes into its data dir
 * (`EARSHOT_DATA_DIR`, default ./.data).
 */
export const resolveServiceAddress = async (service: CliService, flag: string | undefined, env: Env): Promise<string> => {
  const flagName = `--${service}-addr`;
  const envName = `EARSHOT_${service.toUpperCase()}_GRPC_ADDR`;
  const deployedName = `${service.toUpperCase()}_GRPC_ADDR`;
  if (flag) return checkAddress(flag, flagName);
  const fromEnv = env[envName];
  if (fromEnv) return checkAddress(fromEnv, envName);
  const fromDeployment = env[deployedName];
  if (fromDeployment) return checkAddress(fromDeployment, deployedName);
  const file = servicesFilePath(env);
  let text: string | undefined;
  try {
    text = await readFile(file, "utf8");
  } catch {
    // No file: Earshot is not running from this data dir; explained below.
  }
  if (text !== undefined) {
    let address: unknown;
    try {
      address = (JSON.parse(text) as Record<string, unknown>)[service];
    } catch {
      throw new UsageError(`${file} is not valid JSON; restart Earshot (make run) or pass ${flagName} host:port.`);
    }
    if (typeof address === "string" && address) return checkAddress(address, `"${service}" in ${file}`);
    throw new UsageError(`${file} names no ${service} service; restart Earshot (make run) or pass ${flagName} host:port.`);
  }
  throw new UsageError(
    `Cannot find the ${service} service: start Earshot (make run) so ${file} exists, or pass ${flagName} host:port (or set ${envName}).`,
  );
};

/** Where the account service listens (see resolveServiceAddress). */
export const resolveAccountAddress = (flag: string | undefined, env: Env): Promise<string> => resolveServiceAddress("account", flag, env);
