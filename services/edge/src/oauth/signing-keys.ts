import { createPublicKey, generateKeyPairSync, type JsonWebKey } from "node:crypto";
import { type FSWatcher, watch } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Clock } from "@earshot/platform";

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

const readKeyFile = (file: string): Promise<string | undefined> =>
  readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });

const parseKeyFile = (file: string, text: string): SigningKey[] => {
  const parsed = JSON.parse(text) as { keys?: SigningKey[] };
  if (!parsed.keys || parsed.keys.length === 0) throw new Error(`${file} holds no signing keys`);
  // A key that does not parse is refused here, not at the first token it should sign.
  for (const k of parsed.keys) createPublicKey(k.privateKeyPem);
  return parsed.keys;
};

/** Loads the key file, creating it with one fresh key (mode 0600) when it does not exist yet. */
export const loadSigningKeys = async (file: string): Promise<SigningKeys> => {
  const text = await readKeyFile(file);
  if (text !== undefined) return toKeys(parseKeyFile(file, text));
  const keys = [generateSigningKey()];
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
  return toKeys(keys);
};

export interface WatchedSigningKeys extends SigningKeys {
  /** Stops watching the file. */
  close(): void;
}

export interface WatchOptions {
  clock: Clock;
  /**
   * How long a key dropped from the file still verifies: the lifetime of the tokens it may have signed
   * (the access-token lifetime), so a rotation that removes the old key at once logs nobody out.
   */
  retainMs: number;
  /** Told after each reload with the kids now served (signing key first), or why the new file was refused. */
  onReload?: (outcome: { kids: string[] } | { error: Error }) => void;
}

/**
 * The key file, loaded and kept current: a changed file (a Kubernetes Secret update swaps the mounted
 * directory's `..data` symlink, so the directory is watched, not the file) is read again and its first key
 * signs from then on, without a restart. A key the new file no longer holds keeps verifying (and stays in
 * the JWKS) for `retainMs`. A file that does not parse is refused and the keys in use stay.
 */
export const watchSigningKeys = async (file: string, options: WatchOptions): Promise<WatchedSigningKeys> => {
  // The text the keys in use came from: a change is a different text.
  let lastText = await readKeyFile(file);
  let fileKeys = lastText === undefined ? (await loadSigningKeys(file)).all : parseKeyFile(file, lastText);
  /** Keys dropped from the file, verifying until the time given. */
  let retired: Array<{ key: SigningKey; untilMs: number }> = [];
  let current = toKeys(fileKeys);
  const rebuild = () => {
    const inFile = new Set(fileKeys.map((k) => k.kid));
    current = toKeys([...fileKeys, ...retired.filter((r) => !inFile.has(r.key.kid)).map((r) => r.key)]);
  };
  /** Drops the retired keys whose tokens have all expired. */
  const prune = () => {
    const now = options.clock.now().getTime();
    if (retired.some((r) => r.untilMs <= now)) {
      retired = retired.filter((r) => r.untilMs > now);
      rebuild();
    }
    return current;
  };
  const reload = async () => {
    const text = await readKeyFile(file);
    // Mid-swap (no file for a moment) or unchanged (another file of the directory changed): nothing to do.
    if (text === undefined || text === lastText) return;
    lastText = text;
    try {
      const next = parseKeyFile(file, text);
      const kept = new Set(next.map((k) => k.kid));
      const untilMs = options.clock.now().getTime() + options.retainMs;
      retired = [...retired.filter((r) => !kept.has(r.key.kid)), ...fileKeys.filter((k) => !kept.has(k.kid)).map((key) => ({ key, untilMs }))];
      fileKeys = next;
      rebuild();
      options.onReload?.({ kids: prune().all.map((k) => k.kid) });
    } catch (err) {
      options.onReload?.({ error: err as Error });
    }
  };
  // One reload at a time, in order; a burst of events (a symlink swap makes several) reads the file a few times at most.
  let chain = Promise.resolve();
  let pending = false;
  const schedule = () => {
    if (pending) return;
    pending = true;
    chain = chain.then(() => {
      pending = false;
      return reload();
    });
  };
  const watcher: FSWatcher = watch(dirname(file), { persistent: false }, schedule);
  watcher.on("error", (err) => options.onReload?.({ error: err }));
  return {
    get current() {
      return prune().current;
    },
    get all() {
      return prune().all;
    },
    get jwks() {
      return prune().jwks;
    },
    publicKeyFor: (kid) => prune().publicKeyFor(kid),
    close: () => watcher.close(),
  };
};
