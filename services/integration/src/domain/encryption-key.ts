import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseEncryptionKey } from "./token-sealer";

// Where the token key comes from: EARSHOT_ENCRYPTION_KEY when set; on the embedded default, a key
// generated once into the data dir (mode 0600) so `make run` needs no setup. With MongoDB a generated key
// would differ per replica, so the setting is required there.

export const ENCRYPTION_KEY_FILE = "integration-encryption.key";

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
