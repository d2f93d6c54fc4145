import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  CALLER_METADATA_KEY,
  CALLER_SIGNATURE_METADATA_KEY,
  CALLER_SIGNING_KEY_FILE,
  encodeCaller,
  OPERATOR_KEY_FILE,
  OPERATOR_SIGNATURE_METADATA_KEY,
  signCaller,
  signOperator,
  silentLogger,
} from "@earshot/platform";
import { CALLABLE_SERVICES } from "@earshot/registry";
import { Client, credentials, Metadata, status } from "@grpc/grpc-js";
import { testCaller } from "../../platform/src/testing/caller";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { runCli } from "../../cli/src/commands";
import { type RunningEarshot, startAllInOne } from "../src/all-in-one";
import { BOOTSTRAP_EMAIL } from "../src/bootstrap";
import { loadAllInOneConfig } from "../src/config";

// Loopback is no trust boundary: any process of any user on the machine reaches the all-in-one's gRPC
// ports. Only one that can read its data directory (where the call keys are) gets anything done there:
// the instance's own gateway and services, and the operator CLI pointed at that directory.

const configFor = (dataDir: string) => loadAllInOneConfig({ EARSHOT_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "silent", EARSHOT_SIMULATORS: "off", EARSHOT_STORE_SYNC: "normal" });

let tmp: { dir: string; cleanup: () => Promise<void> };
let running: RunningEarshot;
let dataDir: string;

beforeAll(async () => {
  tmp = await makeTempDir("earshot-loopback-");
  dataDir = join(tmp.dir, "data");
  running = await startAllInOne(configFor(dataDir), silentLogger());
});

afterAll(async () => {
  await running?.stop();
  await tmp?.cleanup();
});

const cli = async (env: Record<string, string>, argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err: err.join("\n") };
};

const addressOf = (name: string): string => running.services.find((s) => s.name === name)?.address ?? "";

describe("the all-in-one's gRPC ports", () => {
  it("made its call keys in the data directory, readable by its owner only", async () => {
    for (const file of [CALLER_SIGNING_KEY_FILE, OPERATOR_KEY_FILE]) expect((await stat(join(dataDir, file))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dataDir, OPERATOR_KEY_FILE), "utf8")).toBe(`${running.callKeys.operatorKey}\n`);
    expect(await readFile(join(dataDir, CALLER_SIGNING_KEY_FILE), "utf8")).toBe(`${running.callKeys.callerSigningKey}\n`);
  });

  it("refuse every method of every service to a call without the keys: unsigned, or signed with another key", async () => {
    const wrongKey = "w".repeat(64);
    const caller = encodeCaller(testCaller({ id: "usr_01J0000000000000000000000A", workspaceId: "wsp_01J0000000000000000000000A", email: "eve@example.com" }));
    const attempts: Array<{ what: string; metadata: (path: string) => Metadata }> = [
      { what: "unsigned, acting for nobody", metadata: () => new Metadata() },
      {
        what: "unsigned, naming a caller",
        metadata: () => {
          const md = new Metadata();
          md.set(CALLER_METADATA_KEY, caller);
          return md;
        },
      },
      {
        what: "a caller signed with another key",
        metadata: (path) => {
          const md = new Metadata();
          md.set(CALLER_METADATA_KEY, caller);
          md.set(CALLER_SIGNATURE_METADATA_KEY, signCaller(wrongKey, path, caller));
          return md;
        },
      },
      {
        what: "the operator's signature with another key",
        metadata: (path) => {
          const md = new Metadata();
          md.set(OPERATOR_SIGNATURE_METADATA_KEY, signOperator(wrongKey, path));
          return md;
        },
      },
    ];
    const calls: Array<Promise<string | undefined>> = [];
    let answered: string[];
    const clients = CALLABLE_SERVICES.map((service) => ({ service, raw: new Client(addressOf(service.name), credentials.createInsecure()) }));
    try {
      for (const { service, raw } of clients) {
        for (const method of Object.values(service.client.service) as Array<{ path: string }>) {
          for (const attempt of attempts) {
            // An empty body is a valid message of every request type: only the signature decides.
            calls.push(
              new Promise<number>((resolve) =>
                raw.makeUnaryRequest(method.path, (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), attempt.metadata(method.path), { deadline: Date.now() + 10_000 }, (err) => resolve(err?.code ?? status.OK)),
              ).then((code) => (code === status.UNAUTHENTICATED ? undefined : `${method.path} (${attempt.what}): ${status[code]}`)),
            );
          }
        }
      }
      answered = (await Promise.all(calls)).filter((a): a is string => a !== undefined);
    } finally {
      for (const { raw } of clients) raw.close();
    }
    expect(answered).toEqual([]);
    expect(calls.length).toBeGreaterThan(70 * attempts.length);
  });

  it("answer the operator CLI pointed at the data directory, whose key then works on the API", async () => {
    const res = await cli({ EARSHOT_DATA_DIR: dataDir }, ["key", "create", "--email", BOOTSTRAP_EMAIL, "--scopes", "account:read", "--name", "from the CLI"]);
    expect(res).toMatchObject({ code: 0, err: "" });
    const key = res.out.at(-1) as string;
    expect(key).toMatch(/^svc_sk_/);
    const account = await fetch(`${running.url}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } });
    expect(account.status).toBe(200);
    expect(((await account.json()) as { data: { email: string } }).data.email).toBe(BOOTSTRAP_EMAIL);
  });

  it("refuse the CLI of a process that cannot read the data directory, even knowing where the services are", async () => {
    // Everything but the keys: what a process of another user could learn (the addresses).
    const elsewhere = join(tmp.dir, "elsewhere");
    await mkdir(elsewhere);
    await copyFile(join(dataDir, "services.json"), join(elsewhere, "services.json"));
    const res = await cli({ EARSHOT_DATA_DIR: elsewhere }, ["key", "create", "--email", BOOTSTRAP_EMAIL, "--scopes", "account:read"]);
    expect(res.code).toBe(1);
    expect(res.err).toContain("The call's signature is missing.");
    const forged = await cli({ EARSHOT_DATA_DIR: elsewhere, EARSHOT_OPERATOR_KEY: "f".repeat(64) }, ["account", "reactivate", "--email", BOOTSTRAP_EMAIL]);
    expect(forged.code).toBe(1);
    expect(forged.err).toContain("The operator's signature does not match.");
  });

  it("answer the CLI given the operator key as the setting a cluster uses, over the data directory's", async () => {
    const elsewhere = join(tmp.dir, "with-setting");
    await mkdir(elsewhere);
    await copyFile(join(dataDir, "services.json"), join(elsewhere, "services.json"));
    // A key file that is not this instance's: the setting wins over it.
    await writeFile(join(elsewhere, OPERATOR_KEY_FILE), `${"s".repeat(64)}\n`, { mode: 0o600 });
    const res = await cli({ EARSHOT_DATA_DIR: elsewhere, EARSHOT_OPERATOR_KEY: running.callKeys.operatorKey }, ["account", "reactivate", "--email", BOOTSTRAP_EMAIL]);
    expect(res).toMatchObject({ code: 0, err: "" });
  });
});

describe("the all-in-one's call keys across starts", () => {
  it("are the same after a restart on the same data directory", async () => {
    const own = await makeTempDir("earshot-loopback-restart-");
    try {
      const first = await startAllInOne(configFor(own.dir), silentLogger());
      const keys = first.callKeys;
      await first.stop();
      const second = await startAllInOne(configFor(own.dir), silentLogger());
      try {
        expect(second.callKeys).toEqual(keys);
        expect(second.bootstrap).toBeUndefined();
      } finally {
        await second.stop();
      }
    } finally {
      await own.cleanup();
    }
  });

  it("are those an operator put in an empty data directory first, which still gets its first-start owner", async () => {
    const own = await makeTempDir("earshot-loopback-chosen-");
    try {
      const chosen = "c".repeat(48);
      await writeFile(join(own.dir, OPERATOR_KEY_FILE), `${chosen}\n`, { mode: 0o600 });
      const running = await startAllInOne(configFor(own.dir), silentLogger());
      try {
        expect(running.callKeys.operatorKey).toBe(chosen);
        expect(running.bootstrap?.email).toBe(BOOTSTRAP_EMAIL);
      } finally {
        await running.stop();
      }
    } finally {
      await own.cleanup();
    }
  });

  it("stop the start with one line naming a key file that holds no key", async () => {
    const own = await makeTempDir("earshot-loopback-corrupt-");
    try {
      await writeFile(join(own.dir, OPERATOR_KEY_FILE), "not a key\n", { mode: 0o600 });
      const err = await startAllInOne(configFor(own.dir), silentLogger()).catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toBe(
        `${join(own.dir, OPERATOR_KEY_FILE)} holds no key (one line of 32 or more characters without spaces); delete it and a new one is made at the next start of Earshot.`,
      );
      expect((err as Error).message).not.toContain("\n");
    } finally {
      await own.cleanup();
    }
  });
});
