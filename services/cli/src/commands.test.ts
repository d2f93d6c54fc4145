import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { accountService } from "@earshot/account";
import { createGrpcClient, type GrpcClientHandle, openEmbeddedStore, runWithCaller } from "@earshot/platform";
import { hostServiceForTest, makeTestPki, type ServiceUnderTest, testTlsSettings } from "@earshot/platform/testing";
import { accountV1 } from "@earshot/proto";
import { testCaller } from "../../platform/src/testing/caller";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { parseDuration, runCli } from "./commands";
import type { Env } from "./config";

// The CLI against a real account service, hosted in-process on port 0 and reached over gRPC.

describe("earshot CLI", () => {
  let hosted: ServiceUnderTest;
  let account: GrpcClientHandle<accountV1.AccountServiceClient>;
  // The service checks expiries against the real clock, so the CLI's clock is the real one too, held still.
  const NOW = new Date();
  const IN_30_DAYS = new Date(NOW.getTime() + 30 * 86_400_000);

  beforeAll(async () => {
    hosted = await hostServiceForTest(accountService);
    // What the running all-in-one writes for the CLI to find.
    await writeFile(join(hosted.dataDir, "services.json"), JSON.stringify({ account: hosted.address, project: "127.0.0.1:1" }));
    account = createGrpcClient(accountV1.AccountServiceClient, hosted.address);
  });
  afterAll(async () => {
    account.close();
    await hosted.stop();
  });

  const runWith = async (env: Env, argv: string[], stdin?: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, env, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      now: () => NOW,
      ...(stdin === undefined ? {} : { readStdin: async () => stdin }),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  const run = (...argv: string[]) => runWith({ EARSHOT_DATA_DIR: hosted.dataDir }, argv);
  const createUser = (email: string) => run("user", "create", "--email", email, "--name", "Someone", "--password", "long enough");

  describe("user create", () => {
    it("creates a user, printing its id, email and workspace, finding the service through services.json", async () => {
      const res = await run("user", "create", "--email", "Ops@Example.com", "--name", "Ops", "--password", "long enough");
      expect(res).toMatchObject({ code: 0, err: "" });
      expect(res.out).toMatch(/^Created user usr_[0-9A-Z]{26} <ops@example.com> with workspace wsp_[0-9A-Z]{26}\.$/);
      const { user } = await account.client.getUser({ email: "ops@example.com" });
      expect(res.out).toContain(user!.id);
      expect(res.out).toContain(user!.workspaceId);
    });

    it("reads the password from standard input with --password-stdin", async () => {
      const res = await runWith({ EARSHOT_DATA_DIR: hosted.dataDir }, ["user", "create", "--email", "stdin@example.com", "--name", "In", "--password-stdin"], "from stdin 123\n");
      expect(res.code).toBe(0);
      await expect(account.client.authenticate({ email: "stdin@example.com", password: "from stdin 123" })).resolves.toBeDefined();
    });

    it("reports the service's refusal with exit code 1 and every bad field", async () => {
      const res = await run("user", "create", "--email", "not-an-email", "--name", "X", "--password", "short");
      expect(res.code).toBe(1);
      expect(res.out).toBe("");
      expect(res.err).toContain("The request has invalid fields.");
      expect(res.err).toContain("email: must be an email address");
      expect(res.err).toContain("password: must be 8 to 200 characters");
    });

    it("reports an email already taken with exit code 1", async () => {
      await createUser("twice@example.com");
      const res = await createUser("TWICE@example.com");
      expect(res).toMatchObject({ code: 1, err: "A user with this email already exists." });
    });
  });

  describe("key create", () => {
    it("creates a key that expires, printing the plaintext once with a warning", async () => {
      await createUser("keys@example.com");
      const res = await run("key", "create", "--email", "keys@example.com", "--scopes", "projects:read, projects:write", "--expires-in", "30d", "--name", "Deploy");
      expect(res.code).toBe(0);
      const lines = res.out.split("\n");
      expect(lines[0]).toMatch(/^Created API key key_\w+ "Deploy" for keys@example.com with scopes projects:read,projects:write, expiring /);
      expect(lines[0]).toContain(`expiring ${IN_30_DAYS.toISOString()}.`);
      expect(lines[1]).toBe("Store it now: it will not be shown again.");
      const plaintext = lines[2] as string;
      expect(plaintext).toMatch(/^svc_sk_[\w-]{43}$/);
      const { principal } = await account.client.verifyApiKey({ plaintext });
      expect(principal).toMatchObject({ scopes: ["projects:read", "projects:write"], email: "keys@example.com" });
      const { user } = await account.client.getUser({ email: "keys@example.com" });
      const { apiKeys } = await runWithCaller(testCaller(user!), () => account.client.listApiKeys({ limit: 1, cursor: "" }));
      expect(apiKeys[0]?.expiresAt).toEqual(IN_30_DAYS);
    });

    it("grants any valid scope, as an operator, and names the key API key by default", async () => {
      await createUser("any@example.com");
      const res = await run("key", "create", "--email", "any@example.com", "--scopes", "account:write,mcp");
      expect(res.code).toBe(0);
      expect(res.out).toContain('"API key"');
      expect(res.out).toContain("never expiring");
    });

    it("reports an unknown scope and an unknown user with exit code 1", async () => {
      await createUser("scopes@example.com");
      const bad = await run("key", "create", "--email", "scopes@example.com", "--scopes", "projects:read,projects:admin");
      expect(bad).toMatchObject({ code: 1, err: expect.stringContaining("scopes.1: is not a scope") });
      const nobody = await run("key", "create", "--email", "nobody@example.com", "--scopes", "mcp");
      expect(nobody).toMatchObject({ code: 1, err: "User was not found." });
    });
  });

  describe("account reactivate", () => {
    it("reactivates a deactivated account, so its keys verify again", async () => {
      await createUser("back@example.com");
      const key = (await run("key", "create", "--email", "back@example.com", "--scopes", "projects:read")).out.split("\n").pop() as string;
      const { user } = await account.client.getUser({ email: "back@example.com" });
      await runWithCaller(testCaller(user!), () => account.client.deactivateUser({ confirmation: "DELETE" }));
      await expect(account.client.verifyApiKey({ plaintext: key })).rejects.toMatchObject({ code: "unauthorized" });
      const res = await run("account", "reactivate", "--email", "BACK@example.com");
      expect(res).toMatchObject({ code: 0, out: expect.stringContaining("Reactivated back@example.com") });
      expect((await account.client.getUser({ id: user!.id })).user?.status).toBe(accountV1.UserStatus.USER_STATUS_ACTIVE);
      await expect(account.client.verifyApiKey({ plaintext: key })).resolves.toBeDefined();
    });

    it("says so when the account is active already", async () => {
      await createUser("fine@example.com");
      expect(await run("account", "reactivate", "--email", "fine@example.com")).toMatchObject({ code: 0, out: "fine@example.com is active already; nothing to do." });
    });
  });

  describe("finding the account service", () => {
    it("prefers --account-addr, then EARSHOT_ACCOUNT_GRPC_ADDR, then the deployments' ACCOUNT_GRPC_ADDR, over services.json", async () => {
      await createUser("where@example.com");
      const argv = ["account", "reactivate", "--email", "where@example.com"];
      expect((await runWith({ EARSHOT_DATA_DIR: "/nonexistent" }, [...argv, "--account-addr", hosted.address])).code).toBe(0);
      expect((await runWith({ EARSHOT_DATA_DIR: "/nonexistent", EARSHOT_ACCOUNT_GRPC_ADDR: hosted.address }, argv)).code).toBe(0);
      // In a pod of the chart or the manifests, the ConfigMap names the account service this way.
      expect((await runWith({ EARSHOT_DATA_DIR: "/nonexistent", ACCOUNT_GRPC_ADDR: hosted.address }, argv)).code).toBe(0);
      // The flag wins over a wrong environment, and EARSHOT_ACCOUNT_GRPC_ADDR over ACCOUNT_GRPC_ADDR.
      expect((await runWith({ EARSHOT_ACCOUNT_GRPC_ADDR: "127.0.0.1:1" }, [...argv, "--account-addr", hosted.address])).code).toBe(0);
      expect((await runWith({ EARSHOT_DATA_DIR: "/nonexistent", EARSHOT_ACCOUNT_GRPC_ADDR: hosted.address, ACCOUNT_GRPC_ADDR: "127.0.0.1:1" }, argv)).code).toBe(0);
    });

    it("refuses a malformed ACCOUNT_GRPC_ADDR naming it", async () => {
      const res = await runWith({ EARSHOT_DATA_DIR: "/nonexistent", ACCOUNT_GRPC_ADDR: "not an address" }, ["account", "reactivate", "--email", "a@b.co"]);
      expect(res.code).toBe(64);
      expect(res.err).toContain("ACCOUNT_GRPC_ADDR must be host:port");
    });

    it("explains how to reach the service when it cannot be found", async () => {
      const res = await runWith({ EARSHOT_DATA_DIR: "/nonexistent" }, ["account", "reactivate", "--email", "a@b.co"]);
      expect(res.code).toBe(64);
      expect(res.err).toContain("make run");
      expect(res.err).toContain("--account-addr");
      expect(res.err).toContain("/nonexistent/services.json");
    });

    it("answers a service that does not answer with exit code 1 and the address it tried", async () => {
      const res = await run("user", "create", "--email", "down@example.com", "--name", "D", "--password", "long enough", "--account-addr", "127.0.0.1:1");
      expect(res.code).toBe(1);
      expect(res.err).toContain("Is Earshot running? The account service was expected at 127.0.0.1:1.");
    });

    it("refuses an address that is not host:port", async () => {
      expect((await run("account", "reactivate", "--email", "a@b.co", "--account-addr", "localhost")).code).toBe(64);
    });
  });

  describe("usage", () => {
    it("prints help with --help, -h and help, on stdout with exit code 0", async () => {
      for (const argv of [["--help"], ["-h"], ["help"], ["--", "--help"]]) {
        const res = await run(...argv);
        expect(res).toMatchObject({ code: 0, err: "" });
        expect(res.out).toContain("Usage: earshot <command> [options]");
        expect(res.out).toContain("key create");
      }
    });

    it("prints a command's own help", async () => {
      for (const argv of [["key", "create", "--help"], ["help", "key", "create"]]) {
        const res = await run(...argv);
        expect(res.code).toBe(0);
        expect(res.out).toContain("Usage: earshot key create --email E --scopes a:read,b:write [--name N] [--expires-in 30d]");
        expect(res.out).toContain("--expires-in DURATION");
        expect(res.out).not.toContain("--password");
      }
    });

    it("answers bad usage with exit code 64 and a message on stderr, without calling the service", async () => {
      const cases: string[][] = [
        [],
        ["user", "create", "--email", "x@example.com"],
        ["user", "create", "--email", "x@example.com", "--name", "X"],
        ["launch", "rockets"],
        ["user"],
        ["key", "create", "--email", "x@example.com", "--scopes", "projects:read", "--expires-in", "soon"],
        ["key", "create", "--email", "x@example.com", "--scopes", "projects:read", "--expires-in", "0d"],
        ["key", "create", "--email", "x@example.com", "--scopes", " , "],
        ["key", "create", "--email", "x@example.com"],
        ["user", "create", "--email", "x@example.com", "--name", "X", "--password", "long enough", "--scopes", "mcp"],
        ["user", "create", "--email", "x@example.com", "--name", "X", "--password", "long enough", "--password-stdin"],
        ["--bogus"],
        ["account", "reactivate", "--email"],
        ["help", "nothing"],
      ];
      for (const argv of cases) {
        // A data dir without services.json: reaching for the service would be a different message.
        const res = await runWith({ EARSHOT_DATA_DIR: "/nonexistent" }, argv, "");
        expect({ argv, code: res.code, out: res.out }).toEqual({ argv, code: 64, out: "" });
        expect(res.err).not.toBe("");
        expect(res.err).not.toContain("make run");
      }
    });

    it("reads durations in seconds, minutes, hours and days", () => {
      expect(parseDuration("90s")).toBe(90_000);
      expect(parseDuration("15m")).toBe(900_000);
      expect(parseDuration("12h")).toBe(43_200_000);
      expect(parseDuration("30d")).toBe(2_592_000_000);
      for (const bad of ["30", "d", "1w", "-1d", "1.5h", "0s"]) expect(() => parseDuration(bad)).toThrow(/--expires-in/);
    });
  });
});

describe("earshot CLI under mutual TLS (run in a pod of the chart with grpcTls on)", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let hosted: ServiceUnderTest;
  beforeAll(async () => {
    tmp = await makeTempDir("earshot-cli-mtls-");
    makeTestPki(tmp.dir, "ca", ["account", "operator"]);
    hosted = await hostServiceForTest(accountService, { settings: testTlsSettings(tmp.dir, "ca", "account") });
  });
  afterAll(async () => {
    await hosted?.stop();
    await tmp.cleanup();
  });
  const create = (env: Env, email: string) => {
    const err: string[] = [];
    const argv = ["user", "create", "--email", email, "--name", "Ops", "--password", "long enough"];
    return runCli(argv, { EARSHOT_ACCOUNT_GRPC_ADDR: hosted.address, ...env }, { out: () => undefined, err: (l) => err.push(l) }).then((code) => ({ code, err: err.join("\n") }));
  };

  it("presents the certificate EARSHOT_GRPC_TLS_* names, as the services do", async () => {
    await expect(create(testTlsSettings(tmp.dir, "ca", "operator"), "mtls@example.com")).resolves.toEqual({ code: 0, err: "" });
  });

  it("is refused by the service without one, and stops at usage naming a missing setting or file", async () => {
    expect((await create({}, "plain@example.com")).code).toBe(1);
    const { EARSHOT_GRPC_TLS_KEY_FILE: _key, ...partial } = testTlsSettings(tmp.dir, "ca", "operator");
    await expect(create(partial, "partial@example.com")).resolves.toMatchObject({ code: 64, err: expect.stringContaining("EARSHOT_GRPC_TLS_KEY_FILE: is required") });
    await expect(create({ ...partial, EARSHOT_GRPC_TLS_KEY_FILE: join(tmp.dir, "absent.key") }, "absent@example.com")).resolves.toMatchObject({ code: 64, err: expect.stringContaining("absent.key") });
  });
});

describe("earshot backup and restore", () => {
  const quiet = () => {
    const lines: string[] = [];
    return { io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) }, lines };
  };

  it("backs up a data directory into one file and restores it into an empty one, refusing a directory in use", async () => {
    const tmp = await makeTempDir();
    try {
      const store = await openEmbeddedStore({ dir: join(tmp.dir, "data", "account") });
      await store.collection("users").insertOne({ _id: "usr_1" });
      await writeFile(join(tmp.dir, "data", "bootstrap.json"), "{}");
      const archive = join(tmp.dir, "backup.tar.gz");
      const backup = quiet();
      expect(await runCli(["backup", "--to", archive], { EARSHOT_DATA_DIR: join(tmp.dir, "data") }, backup.io)).toBe(0);
      expect(backup.lines.join("\n")).toMatch(/Backed up 1 service stores \(account\) and 1 other files/);
      await store.close();
      const restore = quiet();
      expect(await runCli(["restore", "--from", archive, "--data-dir", join(tmp.dir, "data")], {}, restore.io)).toBe(1);
      expect(restore.lines.join("\n")).toMatch(/not empty/);
      expect(await runCli(["restore", "--from", archive, "--data-dir", join(tmp.dir, "copy")], {}, quiet().io)).toBe(0);
      const copy = await openEmbeddedStore({ dir: join(tmp.dir, "copy", "account") });
      expect(await copy.collection("users").findById("usr_1")).not.toBeNull();
      await copy.close();
      expect(await runCli(["backup"], {}, quiet().io)).toBe(64);
    } finally {
      await tmp.cleanup();
    }
  });

  it("says in one line that an archive is missing or not a backup, exits 1 and leaves no data directory behind", async () => {
    const tmp = await makeTempDir();
    try {
      const missing = quiet();
      expect(await runCli(["restore", "--from", join(tmp.dir, "missing.tar.gz"), "--data-dir", join(tmp.dir, "data")], {}, missing.io)).toBe(1);
      expect(missing.lines).toEqual([`Cannot restore: ${join(tmp.dir, "missing.tar.gz")} does not exist.`]);
      expect(existsSync(join(tmp.dir, "data"))).toBe(false);

      await writeFile(join(tmp.dir, "notes.txt"), "not a backup");
      const corrupt = quiet();
      expect(await runCli(["restore", "--from", join(tmp.dir, "notes.txt"), "--data-dir", join(tmp.dir, "data")], {}, corrupt.io)).toBe(1);
      expect(corrupt.lines).toEqual([`Cannot restore from ${join(tmp.dir, "notes.txt")}: it is not a gzip file. Nothing was restored.`]);
      expect(existsSync(join(tmp.dir, "data"))).toBe(false);

      // An empty directory given to fill stays, empty.
      await mkdir(join(tmp.dir, "empty"));
      expect(await runCli(["restore", "--from", join(tmp.dir, "notes.txt"), "--data-dir", join(tmp.dir, "empty")], {}, quiet().io)).toBe(1);
      expect(await readdir(join(tmp.dir, "empty"))).toEqual([]);
    } finally {
      await tmp.cleanup();
    }
  });
});
