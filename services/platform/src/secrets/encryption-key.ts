import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { parseEncryptionKey } from "../core/token-sealer";
import { secret } from "../settings";

// Where the key sealing stored secrets comes from: EARSHOT_ENCRYPTION_KEY when set; on the embedded
// default, a key generated once into the data dir (mode 0600) so `make run` needs no setup. With MongoDB a
// generated key would differ per replica, so the setting is required there. Every service that seals or
// opens a secret (integration: provider tokens; webhook and delivery: signing secrets; digest and the edge:
// the unsubscribe links' key, derived from it) declares this one
// setting, the same schema, so the hosts load it once and one key serves them all.

/** The file name predates sharing the key; data dirs made since keep working with it. */
export const ENCRYPTION_KEY_FILE = "integration-encryption.key";

/** The setting, declared by each service that needs it (one schema object, so declaring it twice is no clash). */
export const ENCRYPTION_KEY_SETTING = secret(z.string().min(1).optional(), {
  requiredWhenDeployed: true,
  note: "32 random bytes as 64 hex digits (openssl rand -hex 32): encrypts stored provider tokens and webhook signing secrets, and signs the alert emails' unsubscribe links (checked by the gateway); the same on every replica and service. Keep it: secrets sealed with a lost key must be issued again.",
});

export const resolveEncryptionKey = async (options: { configured?: string; dataDir: string; embedded: boolean }): Promise<Buffer> => {
  if (options.configured) return parseEncryptionKey(options.configured);
  if (!options.embedded) throw new Error("EARSHOT_ENCRYPTION_KEY is required when MONGO_URL is set (every replica must share the key)");
  const file = join(options.dataDir, ENCRYPTION_KEY_FILE);
  try {
    return parseEncryptionKey(await readFile(file, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  await mkdir(options.dataDir, { recursive: true });
  const key = randomBytes(32);
  // `wx`: two processes starting on one fresh data dir cannot both write a key; the loser reads the winner's.
  try {
    await writeFile(file, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return parseEncryptionKey(await readFile(file, "utf8"));
    throw err;
  }
};
