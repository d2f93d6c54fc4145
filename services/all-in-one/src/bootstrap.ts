import { randomBytes } from "node:crypto";
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ALL_SCOPES } from "@earshot/account/scopes";
import { CALL_KEY_FILES, createGrpcClient } from "@earshot/platform";
import { accountV1 } from "@earshot/proto";

// First start of the embedded default: with an empty data dir there is nobody to sign in as, so an owner,
// their workspace and an all-scope API key are created and written to <dataDir>/bootstrap.json (0600).

export const BOOTSTRAP_EMAIL = "owner@earshot.local";

export interface Bootstrap {
  email: string;
  password: string;
  apiKey: string;
}

/** No data yet: nothing but hidden files and the call keys (which an operator may have put there first). */
export const isFreshDataDir = async (dataDir: string): Promise<boolean> => {
  const entries = await readdir(dataDir).catch(() => [] as string[]);
  return entries.filter((e) => !e.startsWith(".") && !CALL_KEY_FILES.includes(e)).length === 0;
};

/** `operatorKey` signs the calls, as the operator CLI's are signed (the services refuse unsigned calls). */
export const bootstrapOwner = async (dataDir: string, accountAddress: string, operatorKey: string): Promise<Bootstrap> => {
  const { client, close } = createGrpcClient(accountV1.AccountServiceClient, accountAddress, { operatorKey });
  try {
    const password = randomBytes(18).toString("base64url");
    const { user } = await client.createUser({ email: BOOTSTRAP_EMAIL, name: "Owner", password });
    if (!user) throw new Error("the account service returned no user");
    const { plaintext } = await client.createApiKey({
      userId: user.id,
      name: "Bootstrap key",
      scopes: [...ALL_SCOPES],
      granterScopes: [],
      operator: true,
    });
    const bootstrap: Bootstrap = { email: user.email, password, apiKey: plaintext };
    await writeFile(join(dataDir, "bootstrap.json"), `${JSON.stringify(bootstrap, null, 2)}\n`, { mode: 0o600 });
    return bootstrap;
  } finally {
    close();
  }
};

/** Where the running services listen, for the operator CLI (`npx earshot …`). */
export const writeServicesFile = (dataDir: string, addresses: Record<string, string>): Promise<void> =>
  writeFile(join(dataDir, "services.json"), `${JSON.stringify(addresses, null, 2)}\n`, { mode: 0o600 });

export const removeServicesFile = (dataDir: string): Promise<void> => rm(join(dataDir, "services.json"), { force: true });
