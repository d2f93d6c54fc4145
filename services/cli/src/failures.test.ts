import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { accountService } from "@earshot/account";
import { newId } from "@earshot/platform";
import { hostServiceForTest, type ServiceUnderTest } from "@earshot/platform/testing";
import { serviceModules } from "@earshot/registry";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { commandNames, runCli } from "./commands";
import type { Env } from "./config";

// Every command's expected failures: one line on stderr naming the problem (never "Unexpected failure",
// never a stack), exit code 1, and nothing left behind in the directory it worked in. The table has an
// entry for every command the CLI lists, so a new command without one fails here. The services are real,
// hosted in-process on port 0.

interface Case {
  what: string;
  argv: (dir: string) => string[];
  /** Files the case starts from, in its own empty directory. */
  prepare?: (dir: string) => Promise<unknown>;
  line: RegExp;
}

const PROJECT = newId("prj");
const POST = JSON.stringify({ source: "x", sourceId: "1", url: "https://x.com/a/status/1", text: "Acme", author: { id: "1", handle: "a" }, publishedAt: "2026-11-20T09:00:00Z" });

let account: ServiceUnderTest;
let digest: ServiceUnderTest;
const accountAddr = () => ["--account-addr", account.address];

const CASES: Record<string, Case[]> = {
  "user create": [
    {
      what: "fields the account service refuses",
      argv: () => ["user", "create", "--email", "not-an-email", "--name", "X", "--password", "short", ...accountAddr()],
      line: /^The request has invalid fields\. email: must be an email address; password: must be 8 to 200 characters$/,
    },
  ],
  "key create": [{ what: "a user that does not exist", argv: () => ["key", "create", "--email", "nobody@example.com", "--scopes", "mcp", ...accountAddr()], line: /^User was not found\.$/ }],
  "account reactivate": [{ what: "a user that does not exist", argv: () => ["account", "reactivate", "--email", "nobody@example.com", ...accountAddr()], line: /^User was not found\.$/ }],
  "posts import": [
    {
      what: "a mention service that does not answer",
      prepare: (dir) => writeFile(join(dir, "posts.jsonl"), `${POST}\n`),
      argv: (dir) => ["posts", "import", "--project", PROJECT, "--file", join(dir, "posts.jsonl"), "--mention-addr", "127.0.0.1:1"],
      line: /did not answer.* Is Earshot running\? The mention service was expected at 127\.0\.0\.1:1\.$/,
    },
  ],
  "digest send": [
    {
      what: "a project the digest service does not know",
      argv: () => ["digest", "send", "--project", PROJECT, "--digest-addr", digest.address],
      line: new RegExp(`^No digest sent for ${PROJECT}: the digest service knows no active project by that id`),
    },
  ],
  backup: [
    { what: "a data directory that does not exist", argv: (dir) => ["backup", "--to", join(dir, "b.tar.gz"), "--data-dir", join(dir, "none")], line: /^Cannot back up: the data directory .*none does not exist\. Nothing was written\.$/ },
    {
      what: "an archive in a directory that does not exist",
      prepare: (dir) => mkdir(join(dir, "data", "account"), { recursive: true }),
      argv: (dir) => ["backup", "--to", join(dir, "no", "b.tar.gz"), "--data-dir", join(dir, "data")],
      line: /^Cannot back up: the directory .*no to write .*b\.tar\.gz in does not exist\. Nothing was written\.$/,
    },
    {
      what: "an archive that is a directory",
      prepare: (dir) => mkdir(join(dir, "data", "account"), { recursive: true }),
      argv: (dir) => ["backup", "--to", join(dir, "data"), "--data-dir", join(dir, "data")],
      line: /^Cannot back up: .*data is a directory; name the archive file to write\. Nothing was written\.$/,
    },
  ],
  restore: [
    { what: "an archive that does not exist", argv: (dir) => ["restore", "--from", join(dir, "missing.tar.gz"), "--data-dir", join(dir, "data")], line: /^Cannot restore: .*missing\.tar\.gz does not exist\.$/ },
    {
      what: "a file that is not a backup",
      prepare: (dir) => writeFile(join(dir, "notes.txt"), "not a backup"),
      argv: (dir) => ["restore", "--from", join(dir, "notes.txt"), "--data-dir", join(dir, "data")],
      line: /^Cannot restore from .*notes\.txt: it is not a gzip file\. Nothing was restored\.$/,
    },
  ],
  setup: [
    {
      what: "a data directory that is a file",
      prepare: (dir) => writeFile(join(dir, "data"), ""),
      argv: (dir) => ["setup", "--data-dir", join(dir, "data")],
      line: /^Cannot set up the account store: .*data\/account: a part of the path is not a directory\.$/,
    },
    {
      what: "a data directory a running Earshot holds",
      // The lock a running process (here the test runner's parent) holds on a service's directory.
      prepare: async (dir) => {
        await mkdir(join(dir, "data", "account"), { recursive: true });
        await writeFile(join(dir, "data", "account", ".lock"), String(process.ppid));
      },
      argv: (dir) => ["setup", "--data-dir", join(dir, "data")],
      line: new RegExp(`^Cannot set up the account store: The data directory .*account is in use by process ${process.ppid}\\.$`),
    },
  ],
};

/** Every path under `dir`, to see that a failed command left nothing behind. */
const tree = async (dir: string): Promise<string[]> => (await readdir(dir, { recursive: true })).map(String).sort();

describe("every CLI command's expected failures", () => {
  beforeAll(async () => {
    account = await hostServiceForTest(accountService);
    const digestModule = serviceModules().find((m) => m.name === "digest");
    if (!digestModule) throw new Error("no digest service module");
    digest = await hostServiceForTest(digestModule);
  });
  afterAll(async () => {
    await account?.stop();
    await digest?.stop();
  });

  it("has a case for every command", () => {
    expect(Object.keys(CASES).sort()).toEqual(commandNames().sort());
  });

  const all = Object.entries(CASES).flatMap(([command, cases]) => cases.map((c) => [command, c.what, c] as const));
  it.each(all)("%s: %s is one line naming it, exit code 1, nothing left behind", async (_command, _what, c) => {
    const tmp = await makeTempDir("earshot-cli-failure-");
    try {
      await c.prepare?.(tmp.dir);
      const before = await tree(tmp.dir);
      const out: string[] = [];
      const err: string[] = [];
      const env: Env = { EARSHOT_DATA_DIR: account.dataDir };
      const code = await runCli(c.argv(tmp.dir), env, { out: (l) => out.push(l), err: (l) => err.push(l) });
      const text = err.join("\n");
      expect({ code, lines: text.split("\n").length }).toEqual({ code: 1, lines: 1 });
      expect(text).toMatch(c.line);
      expect(text).not.toMatch(/Unexpected failure|\n\s+at /);
      expect(await tree(tmp.dir)).toEqual(before);
    } finally {
      await tmp.cleanup();
    }
  });
});
