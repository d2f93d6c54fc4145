import { mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir } from "../testing/tmp";
import { CALLER_SIGNING_KEY_FILE, CallKeyFileError, OPERATOR_KEY_FILE, readCallKeyFile, resolveCallKeys } from "./call-keys";

// The all-in-one's call keys in its data directory: made once with mode 0600, the same at every start,
// a setting given in their place wins, and a file that is not a key stops the start with one line.

describe("call keys in the data directory", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await makeTempDir("earshot-call-keys-");
  });
  afterEach(async () => {
    await tmp.cleanup();
  });

  it("makes both keys at the first start, each in a file only its owner can read, and finds the same ones after", async () => {
    const dataDir = join(tmp.dir, "data");
    const first = await resolveCallKeys({ dataDir });
    expect(first.callerSigningKey).toMatch(/^[0-9a-f]{64}$/);
    expect(first.operatorKey).toMatch(/^[0-9a-f]{64}$/);
    expect(first.operatorKey).not.toBe(first.callerSigningKey);
    for (const file of [CALLER_SIGNING_KEY_FILE, OPERATOR_KEY_FILE]) expect((await stat(join(dataDir, file))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dataDir, OPERATOR_KEY_FILE), "utf8")).toBe(`${first.operatorKey}\n`);
    // The directory it made is its owner's alone: the stores it will hold keep every account's data.
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect(await resolveCallKeys({ dataDir })).toEqual(first);
    // Nothing is left beside them.
    expect((await readdir(dataDir)).sort()).toEqual([CALLER_SIGNING_KEY_FILE, OPERATOR_KEY_FILE]);
  });

  it("ends with one key when two processes start on one fresh data directory at once", async () => {
    const all = await Promise.all(Array.from({ length: 4 }, () => resolveCallKeys({ dataDir: tmp.dir })));
    expect(new Set(all.map((k) => k.operatorKey)).size).toBe(1);
    expect(new Set(all.map((k) => k.callerSigningKey)).size).toBe(1);
  });

  it("takes a configured key instead of a file, writing no file for it", async () => {
    const configured = "c".repeat(40);
    const keys = await resolveCallKeys({ dataDir: tmp.dir, callerSigningKey: configured });
    expect(keys.callerSigningKey).toBe(configured);
    expect(await readdir(tmp.dir)).toEqual([OPERATOR_KEY_FILE]);
  });

  it("reads a key an operator wrote with an editor (one trailing newline), and no key when there is no file", async () => {
    await writeFile(join(tmp.dir, OPERATOR_KEY_FILE), `${"k".repeat(40)}\r\n`);
    expect(await readCallKeyFile(tmp.dir, OPERATOR_KEY_FILE)).toBe("k".repeat(40));
    expect(await readCallKeyFile(tmp.dir, CALLER_SIGNING_KEY_FILE)).toBeUndefined();
  });

  it.each([
    ["empty", ""],
    ["too short", "abc\n"],
    ["two lines", `${"a".repeat(40)}\n${"b".repeat(40)}\n`],
    ["not text", "\u0000".repeat(64)],
  ])("refuses a key file that is %s in one line naming it and the way out", async (_what, content) => {
    await writeFile(join(tmp.dir, OPERATOR_KEY_FILE), content, { mode: 0o600 });
    const err = await resolveCallKeys({ dataDir: tmp.dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallKeyFileError);
    expect((err as Error).message).toBe(
      `${join(tmp.dir, OPERATOR_KEY_FILE)} holds no key (one line of 32 or more characters without spaces); delete it and a new one is made at the next start of Earshot.`,
    );
  });

  it("says in one line which key file it cannot write when a link to nowhere holds its name", async () => {
    await symlink(join(tmp.dir, "nowhere"), join(tmp.dir, OPERATOR_KEY_FILE));
    const err = await resolveCallKeys({ dataDir: tmp.dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallKeyFileError);
    expect((err as Error).message).toBe(`cannot write ${join(tmp.dir, OPERATOR_KEY_FILE)}: something that is not a file holds its name; remove it.`);
    // Nothing is left beside it.
    expect((await readdir(tmp.dir)).sort()).toEqual([CALLER_SIGNING_KEY_FILE, OPERATOR_KEY_FILE]);
  });

  it("refuses a key file it cannot read in one line naming it and why", async () => {
    // A directory where the file should be cannot be read, whoever runs the test (root reads any file).
    await mkdir(join(tmp.dir, CALLER_SIGNING_KEY_FILE));
    const err = await resolveCallKeys({ dataDir: tmp.dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallKeyFileError);
    expect((err as Error).message).toBe(`cannot read ${join(tmp.dir, CALLER_SIGNING_KEY_FILE)} (EISDIR).`);
  });
});
