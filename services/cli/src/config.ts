import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CallKeyFileError, OPERATOR_KEY_FILE, readCallKeyFile, resolveSecretFiles } from "@earshot/platform";

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

/** The data directory of the Earshot the CLI talks to: EARSHOT_DATA_DIR, else ./.data. */
export const dataDirOf = (env: Env): string => env.EARSHOT_DATA_DIR || DEFAULT_DATA_DIR;

export const servicesFilePath = (env: Env): string => join(dataDirOf(env), "services.json");

/**
 * The key the CLI signs its calls with, as the operator: EARSHOT_OPERATOR_KEY (also as
 * EARSHOT_OPERATOR_KEY_FILE or a file in EARSHOT_SECRETS_DIR, as the services take it: a pod of the chart
 * finds its mounted Secret there), else the `operator.key` the all-in-one made in its data directory, so
 * only an account that can read that directory runs operator commands. None: the calls go unsigned, and a
 * service that checks signatures refuses them.
 */
export const resolveOperatorKey = async (env: Env): Promise<string | undefined> => {
  const secrets = resolveSecretFiles(["EARSHOT_OPERATOR_KEY"], env);
  if (secrets.problems.length > 0) throw new UsageError(secrets.problems.join("\n"));
  const configured = secrets.env.EARSHOT_OPERATOR_KEY;
  if (configured) return configured;
  try {
    return await readCallKeyFile(dataDirOf(env), OPERATOR_KEY_FILE);
  } catch (err) {
    if (err instanceof CallKeyFileError) throw new UsageError(err.message);
    throw err;
  }
};

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

/** What to do when a service refuses the CLI's signature: where the key it takes is. */
export const operatorKeyHint = (env: Env): string =>
  `The service takes only calls signed with its operator key: run the CLI as the account that runs Earshot, with EARSHOT_DATA_DIR its data directory (it holds ${OPERATOR_KEY_FILE}; now ${dataDirOf(env)}), or set EARSHOT_OPERATOR_KEY.`;
