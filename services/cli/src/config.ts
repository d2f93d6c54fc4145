import { readFile } from "node:fs/promises";
import { join } from "node:path";

// Where the account service listens: --account-addr, else EARSHOT_ACCOUNT_GRPC_ADDR, else the
// services.json a running all-in-one writes into its data dir.

export type Env = Record<string, string | undefined>;

export const readEnv = (): Env => process.env;

export const resolveAccountAddress = async (flag: string | undefined, env: Env): Promise<string> => {
  if (flag) return flag;
  if (env.EARSHOT_ACCOUNT_GRPC_ADDR) return env.EARSHOT_ACCOUNT_GRPC_ADDR;
  const dataDir = env.EARSHOT_DATA_DIR ?? "./.data";
  try {
    const services = JSON.parse(await readFile(join(dataDir, "services.json"), "utf8")) as { account?: string };
    if (services.account) return services.account;
  } catch {
    // fall through to the explanation below
  }
  throw new UsageError(
    `Cannot find the account service: start Earshot (make run) so ${join(dataDir, "services.json")} exists, or pass --account-addr host:port.`,
  );
};

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
