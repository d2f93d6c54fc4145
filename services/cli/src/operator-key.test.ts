import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { OPERATOR_KEY_FILE } from "@earshot/platform";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { runCli } from "./commands";
import type { Env } from "./config";

// Where the CLI finds the operator key it signs with: EARSHOT_OPERATOR_KEY when set, else the operator.key
// the all-in-one made in the data directory. A key file it cannot use stops it before any call, in one
// line naming the file (a started all-in-one's answers are in all-in-one/test/loopback-calls.test.ts).

describe("earshot CLI's operator key", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await makeTempDir("earshot-cli-key-");
  });
  afterEach(async () => {
    await tmp.cleanup();
  });

  const run = async (env: Env) => {
    const err: string[] = [];
    // Nothing listens on port 1: a command that gets as far as calling fails as unavailable (exit 1).
    const code = await runCli(["user", "create", "--email", "ops@example.com", "--name", "Ops", "--password", "long enough", "--account-addr", "127.0.0.1:1"], env, {
      out: () => undefined,
      err: (l) => err.push(l),
    });
    return { code, err: err.join("\n") };
  };

  it("stops with exit 64 and one line naming a data directory's key file that holds no key", async () => {
    await writeFile(join(tmp.dir, OPERATOR_KEY_FILE), "short\n", { mode: 0o600 });
    expect(await run({ EARSHOT_DATA_DIR: tmp.dir })).toEqual({
      code: 64,
      err: `${join(tmp.dir, OPERATOR_KEY_FILE)} holds no key (one line of 32 or more characters without spaces); delete it and a new one is made at the next start of Earshot.`,
    });
  });

  it("stops with exit 64 and one line naming a key file it cannot read", async () => {
    await mkdir(join(tmp.dir, OPERATOR_KEY_FILE));
    expect(await run({ EARSHOT_DATA_DIR: tmp.dir })).toEqual({ code: 64, err: `cannot read ${join(tmp.dir, OPERATOR_KEY_FILE)} (EISDIR).` });
  });

  it("takes EARSHOT_OPERATOR_KEY over the data directory's file, and no file at all as no key", async () => {
    await writeFile(join(tmp.dir, OPERATOR_KEY_FILE), "short\n", { mode: 0o600 });
    // The file is not read: the command gets as far as calling the (absent) service.
    const withSetting = await run({ EARSHOT_DATA_DIR: tmp.dir, EARSHOT_OPERATOR_KEY: "k".repeat(40) });
    expect(withSetting.code).toBe(1);
    expect(withSetting.err).toContain("127.0.0.1:1");
    const withoutFile = await run({ EARSHOT_DATA_DIR: join(tmp.dir, "elsewhere") });
    expect(withoutFile.code).toBe(1);
    expect(withoutFile.err).toContain("127.0.0.1:1");
  });
});
