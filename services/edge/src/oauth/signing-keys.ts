import { createPublicKey, generateKeyPairSync, type JsonWebKey } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

// Access tokens are RS256 JWTs. Signing keys persist in one JSON file (the embedded default keeps it in
// the data dir; the chart mounts it from a Secret so every replica signs with the same key). The first
// key signs; every key in the file verifies, so rotation is: put a new key first, keep the old one
// until the tokens it signed have expired (15 minutes), then drop it.

export interface SigningKey {
  kid: string;
  alg: "RS256";
  privateKeyPem: string;
  createdAt: string;
}

export interface SigningKeys {
  current: SigningKey;
  all: SigningKey[];
  jwks: { keys: Array<JsonWebKey & { kid: string; alg: string; use: string }> };
  publicKeyFor(kid: string): string | undefined;
}

export const generateSigningKey = (now = new Date()): SigningKey => {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    kid: `k${now.toISOString().replace(/\D/g, "").slice(0, 14)}`,
    alg: "RS256",
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    createdAt: now.toISOString(),
  };
};

const toKeys = (all: SigningKey[]): SigningKeys => {
  const publicPems = new Map(all.map((k) => [k.kid, createPublicKey(k.privateKeyPem).export({ type: "spki", format: "pem" }) as string]));
  return {
    current: all[0] as SigningKey,
    all,
    jwks: {
      keys: all.map((k) => ({ ...createPublicKey(k.privateKeyPem).export({ format: "jwk" }), kid: k.kid, alg: k.alg, use: "sig" })),
    },
    publicKeyFor: (kid) => publicPems.get(kid),
  };
};

/** Loads the key file, creating it with one fresh key (mode 0600) when it does not exist yet. */
export const loadSigningKeys = async (file: string): Promise<SigningKeys> => {
  const text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (text !== undefined) {
    const parsed = JSON.parse(text) as { keys?: SigningKey[] };
    if (!parsed.keys || parsed.keys.length === 0) throw new Error(`${file} holds no signing keys`);
    return toKeys(parsed.keys);
  }
  const keys = [generateSigningKey()];
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
  return toKeys(keys);
};
