import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { accountService } from "@earshot/account";
import { baseConfigSchema, createInProcessBus, createMailer, type HostedService, hostService, loadConfig, silentLogger } from "@earshot/platform";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { runCli } from "./commands";

// The CLI against a real account service over gRPC.

describe("earshot CLI", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let hosted: HostedService;
  const bus = createInProcessBus();
  beforeAll(async () => {
    tmp = await makeTempDir();
    const config = loadConfig(baseConfigSchema, { EARSHOT_DATA_DIR: tmp.dir });
    const logger = silentLogger();
    hosted = await hostService(accountService, { config, host: "127.0.0.1", port: 0, bus, logger, mailer: createMailer({ from: "x@y.z", dataDir: tmp.dir, logger }) });
    await writeFile(join(tmp.dir, "services.json"), JSON.stringify({ account: hosted.address }));
  });
  afterAll(async () => {
    await hosted.stop(1000);
    await bus.close();
    await tmp.cleanup();
  });

  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { EARSHOT_DATA_DIR: tmp.dir }, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };

  it("creates a user, finding the running service through the data dir", async () => {
    const res = await run("user", "create", "--email", "ops@example.com", "--name", "Ops", "--password", "long enough");
    expect(res).toMatchObject({ code: 0, out: expect.stringMatching(/Created user usr_\w+ <ops@example.com> with workspace wsp_/) });
  });

  it("creates a key that expires, printing the plaintext once", async () => {
    await run("user", "create", "--email", "keys@example.com", "--name", "Keys", "--password", "long enough");
    const res = await run("key", "create", "--email", "keys@example.com", "--scopes", "projects:read,projects:write", "--expires-in", "30d");
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/expiring 20\d\d-/);
    expect(res.out.split("\n").pop()).toMatch(/^svc_sk_[\w-]{43}$/);
  });

  it("reactivates a deactivated account", async () => {
    await run("user", "create", "--email", "back@example.com", "--name", "Back", "--password", "long enough");
    const res = await run("account", "reactivate", "--email", "back@example.com");
    expect(res).toMatchObject({ code: 0, out: expect.stringContaining("Reactivated back@example.com") });
  });

  it("answers bad usage with exit code 64", async () => {
    expect((await run("user", "create", "--email", "x@example.com")).code).toBe(64);
    expect((await run("launch", "rockets")).code).toBe(64);
    expect((await run("key", "create", "--email", "x@example.com", "--scopes", "projects:read", "--expires-in", "soon")).code).toBe(64);
    expect((await run("--bogus")).code).toBe(64);
  });

  it("reports a refusal of the service with exit code 1 and the bad fields", async () => {
    const res = await run("user", "create", "--email", "not-an-email", "--name", "X", "--password", "short");
    expect(res.code).toBe(1);
    expect(res.err).toContain("email: must be an email address");
    expect(res.err).toContain("password: must be 8 to 200 characters");
  });

  it("explains how to reach the service when it cannot be found", async () => {
    const out: string[] = [];
    const code = await runCli(["account", "reactivate", "--email", "a@b.co"], { EARSHOT_DATA_DIR: "/nonexistent" }, { out: () => undefined, err: (l) => out.push(l) });
    expect(code).toBe(64);
    expect(out.join()).toContain("make run");
  });
});
