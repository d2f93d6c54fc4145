import { silentLogger } from "@earshot/platform";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { startAllInOne } from "../src/all-in-one";
import { startupBanner } from "../src/banner";
import { loadAllInOneConfig } from "../src/config";

describe("the start-up banner", () => {
  it("says where the first start's credentials are and never prints the key or the password", async () => {
    const tmp = await makeTempDir();
    try {
      const running = await startAllInOne(loadAllInOneConfig({ EARSHOT_DATA_DIR: tmp.dir, PORT: "0", LOG_LEVEL: "silent" }), silentLogger());
      try {
        const bootstrap = running.bootstrap;
        expect(bootstrap?.apiKey).toMatch(/^svc_sk_/);
        const banner = startupBanner(running);
        expect(banner).not.toContain(bootstrap?.apiKey);
        expect(banner).not.toContain(bootstrap?.password);
        expect(banner).not.toMatch(/svc_sk_/);
        expect(banner).toContain(`${running.dataDir}/bootstrap.json (mode 0600`);
        expect(banner).toContain(running.url);
        expect(banner).toContain(`web app: ${running.url}/app`);
      } finally {
        await running.stop();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
