import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { silentLogger } from "@earshot/platform";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { startAllInOne } from "../src/all-in-one";
import { loadAllInOneConfig } from "../src/config";

describe("first start", () => {
  it("creates an owner with an all-scope key once, in a bootstrap.json only its owner can read", async () => {
    const tmp = await makeTempDir();
    try {
      const config = loadAllInOneConfig({ EARSHOT_DATA_DIR: tmp.dir, PORT: "0", LOG_LEVEL: "silent" });
      const first = await startAllInOne(config, silentLogger());
      expect(first.bootstrap?.apiKey).toMatch(/^svc_sk_/);
      const file = join(tmp.dir, "bootstrap.json");
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(await readFile(file, "utf8")) as { email: string; password: string; apiKey: string };
      expect(saved).toEqual({ email: "owner@earshot.local", password: expect.any(String), apiKey: first.bootstrap?.apiKey });
      const services = JSON.parse(await readFile(join(tmp.dir, "services.json"), "utf8")) as Record<string, string>;
      expect(services.account).toMatch(/^127\.0\.0\.1:\d+$/);
      const res = await fetch(`${first.url}/api/v1/projects`, { headers: { Authorization: `Bearer ${saved.apiKey}` } });
      expect(res.status).toBe(200);
      const jwks = async (url: string) => ((await (await fetch(`${url}/oauth/jwks`)).json()) as { keys: Array<{ kid: string; n: string }> }).keys;
      const keysBefore = await jwks(first.url);
      expect((await stat(join(tmp.dir, "oauth-signing-keys.json"))).mode & 0o777).toBe(0o600);
      await first.stop();
      const second = await startAllInOne(config, silentLogger());
      expect(second.bootstrap).toBeUndefined();
      // The call keys too: the operator CLI keeps working across restarts.
      expect(second.callKeys).toEqual(first.callKeys);
      // OAuth signing keys persist, so tokens issued before a restart still verify after it.
      expect(await jwks(second.url)).toEqual(keysBefore);
      const again = await fetch(`${second.url}/api/v1/account`, { headers: { Authorization: `Bearer ${saved.apiKey}` } });
      expect(((await again.json()) as { data: { email: string } }).data.email).toBe("owner@earshot.local");
      await second.stop();
    } finally {
      await tmp.cleanup();
    }
  });

  it("has written bootstrap.json by the time the gateway first answers ready", async () => {
    const tmp = await makeTempDir();
    // A port free now, so the readiness can be asked while the instance starts on it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    try {
      const starting = startAllInOne(loadAllInOneConfig({ EARSHOT_DATA_DIR: tmp.dir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "silent" }), silentLogger());
      // Ask until the gateway says ready (each ask waits for its answer or the refused connection), then look.
      let ready = false;
      while (!ready) ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);
      expect(existsSync(join(tmp.dir, "bootstrap.json"))).toBe(true);
      await (await starting).stop();
    } finally {
      await tmp.cleanup();
    }
  });
});
