import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock, silentLogger } from "@earshot/platform";
import { serviceAddresses } from "@earshot/registry";
import { makeTempDir } from "../../../platform/src/testing/tmp";
import { startGateway } from "../gateway";
import { ACCESS_TOKEN_SECONDS } from "./provider";
import { generateSigningKey, type SigningKey, watchSigningKeys } from "./signing-keys";

// A Kubernetes Secret mounted as a volume: each key a symlink through `..data`, which an update points at a
// fresh timestamped directory in one rename. The watched key file must follow that swap.

const FILE = "oauth-signing-keys.json";

const mountedSecret = (dir: string) => {
  let version = 0;
  const publish = (content: string) => {
    version += 1;
    const target = `..2026_11_26_${version}`;
    mkdirSync(join(dir, target));
    writeFileSync(join(dir, target, FILE), content);
    symlinkSync(target, join(dir, "..data_tmp"));
    renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
  };
  return {
    file: join(dir, FILE),
    /** Writes the first version and the key's symlink, as the kubelet does when the pod starts. */
    create(keys: SigningKey[]) {
      publish(JSON.stringify({ keys }));
      symlinkSync(join("..data", FILE), join(dir, FILE));
    },
    update: (content: string) => publish(content),
  };
};

/** The next reload's outcome, waited on as an event. */
const reloads = () => {
  const waiting: Array<(o: { kids: string[] } | { error: Error }) => void> = [];
  return {
    onReload: (o: { kids: string[] } | { error: Error }) => waiting.shift()?.(o),
    next: () => new Promise<{ kids: string[] } | { error: Error }>((resolve) => waiting.push(resolve)),
  };
};

const oldKey = generateSigningKey(new Date("2026-11-01T00:00:00Z"));
const newKey = generateSigningKey(new Date("2026-11-26T00:00:00Z"));

describe("OAuth signing keys from a mounted Secret", () => {
  it("sign with the new first key after the Secret changes, and verify with the dropped one until its tokens have expired", async () => {
    const tmp = await makeTempDir("earshot-oauth-keys-");
    const clock = new ManualClock("2026-11-26T12:00:00Z");
    const secret = mountedSecret(tmp.dir);
    secret.create([oldKey]);
    const events = reloads();
    const keys = await watchSigningKeys(secret.file, { clock, retainMs: ACCESS_TOKEN_SECONDS * 1000, onReload: events.onReload });
    try {
      expect(keys.current.kid).toBe(oldKey.kid);
      const reloaded = events.next();
      secret.update(JSON.stringify({ keys: [newKey] }));
      expect(await reloaded).toEqual({ kids: [newKey.kid, oldKey.kid] });
      expect(keys.current.kid).toBe(newKey.kid);
      expect(keys.jwks.keys.map((k) => k.kid)).toEqual([newKey.kid, oldKey.kid]);
      expect(keys.publicKeyFor(oldKey.kid)).toBeDefined();

      clock.advance(ACCESS_TOKEN_SECONDS * 1000 - 1);
      expect(keys.publicKeyFor(oldKey.kid)).toBeDefined();
      clock.advance(1);
      expect(keys.publicKeyFor(oldKey.kid)).toBeUndefined();
      expect(keys.jwks.keys.map((k) => k.kid)).toEqual([newKey.kid]);
    } finally {
      keys.close();
      await tmp.cleanup();
    }
  });

  it("refuse a changed file that holds no usable key, keeping the keys in use", async () => {
    const tmp = await makeTempDir("earshot-oauth-keys-");
    const secret = mountedSecret(tmp.dir);
    secret.create([oldKey]);
    const events = reloads();
    const keys = await watchSigningKeys(secret.file, { clock: new ManualClock(), retainMs: 1000, onReload: events.onReload });
    try {
      for (const broken of ["{ not json", JSON.stringify({ keys: [] }), JSON.stringify({ keys: [{ ...newKey, privateKeyPem: "garbage" }] })]) {
        const reloaded = events.next();
        secret.update(broken);
        const outcome = await reloaded;
        expect({ broken, refused: "error" in outcome }).toEqual({ broken, refused: true });
        expect(keys.current.kid).toBe(oldKey.kid);
        expect(keys.jwks.keys.map((k) => k.kid)).toEqual([oldKey.kid]);
      }
    } finally {
      keys.close();
      await tmp.cleanup();
    }
  });

  it("reach the gateway's JWKS without a restart", async () => {
    const tmp = await makeTempDir("earshot-oauth-keys-");
    const secretDir = join(tmp.dir, "oauth");
    mkdirSync(secretDir);
    const secret = mountedSecret(secretDir);
    secret.create([oldKey]);
    const events = reloads();
    const gateway = await startGateway({
      host: "127.0.0.1",
      port: 0,
      addresses: serviceAddresses(() => "127.0.0.1:1"),
      logger: silentLogger(),
      config: { EARSHOT_DATA_DIR: tmp.dir, LOG_LEVEL: "silent", MONGO_DB_PREFIX: "earshot", KAFKA_CLIENT_ID: "earshot", EARSHOT_MAIL_FROM: "x <x@example.com>", EARSHOT_DRAIN_MS: 1000, EARSHOT_STORE_SYNC: "normal", EARSHOT_STORE_CACHE_MB: 2, EARSHOT_OUTBOX_RETENTION_HOURS: 168 },
      rateLimitPerMinute: 100,
      credentialCacheMs: 0,
      oauthKeysFile: secret.file,
      reloadOAuthKeys: true,
      onOAuthKeysReloaded: events.onReload,
      oauthRateLimitPerMinute: 0,
      trustProxy: false,
    });
    const kids = async () => ((await (await fetch(`${gateway.url}/oauth/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
    try {
      expect(await kids()).toEqual([oldKey.kid]);
      const reloaded = events.next();
      secret.update(JSON.stringify({ keys: [newKey, oldKey] }));
      expect(await reloaded).toEqual({ kids: [newKey.kid, oldKey.kid] });
      expect(await kids()).toEqual([newKey.kid, oldKey.kid]);
    } finally {
      await gateway.stop(1000);
      await tmp.cleanup();
    }
  });
});
