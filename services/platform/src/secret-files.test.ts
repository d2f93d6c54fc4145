import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { baseConfigSchema, ConfigError, loadConfig } from "./config";
import { secret } from "./settings";
import { makeTempDir } from "./testing/tmp";

const KEY = "k".repeat(40);

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  tmp = await makeTempDir("earshot-secret-files-");
});
afterEach(() => tmp.cleanup());

const write = (name: string, content: string) => {
  const path = join(tmp.dir, name);
  writeFileSync(path, content);
  return path;
};

const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected a ConfigError");
};

describe("secret settings given as files", () => {
  it("reads <NAME>_FILE into the setting, trimming one trailing newline, for the shared secrets and a service's own", () => {
    const schema = z.object({ ...baseConfigSchema.shape, EARSHOT_TALLY_TOKEN: secret(z.string().min(1).optional()) });
    const config = loadConfig(schema, {
      EARSHOT_CALLER_SIGNING_KEY_FILE: write("signing", `${KEY}\n`),
      MONGO_URL_FILE: write("mongo", "mongodb://db/?replicaSet=rs0\r\n"),
      EARSHOT_TALLY_TOKEN_FILE: write("tally", "two lines\nkept\n"),
    });
    expect(config).toMatchObject({ EARSHOT_CALLER_SIGNING_KEY: KEY, MONGO_URL: "mongodb://db/?replicaSet=rs0", EARSHOT_TALLY_TOKEN: "two lines\nkept" });
    expect(config).not.toHaveProperty("MONGO_URL_FILE");
  });

  it("checks a value read from a file like one from the environment", () => {
    expect(problemsOf(() => loadConfig(baseConfigSchema, { EARSHOT_OPERATOR_KEY_FILE: write("op", "short\n") }))).toEqual([
      "EARSHOT_OPERATOR_KEY: must be at least 32 characters",
    ]);
  });

  it("refuses a secret given both as <NAME> and <NAME>_FILE, naming both", () => {
    expect(problemsOf(() => loadConfig(baseConfigSchema, { EARSHOT_CALLER_SIGNING_KEY: KEY, EARSHOT_CALLER_SIGNING_KEY_FILE: write("signing", KEY) }))).toEqual([
      "EARSHOT_CALLER_SIGNING_KEY: set both as EARSHOT_CALLER_SIGNING_KEY and as EARSHOT_CALLER_SIGNING_KEY_FILE; give one",
    ]);
  });

  it("refuses a <NAME>_FILE that cannot be read, naming the variable and the path", () => {
    const missing = join(tmp.dir, "nowhere");
    expect(problemsOf(() => loadConfig(baseConfigSchema, { MONGO_URL_FILE: missing }))).toEqual([`MONGO_URL_FILE: cannot read ${missing} (ENOENT)`]);
  });

  it("ignores <NAME>_FILE for a setting that is not secret", () => {
    const config = loadConfig(baseConfigSchema, { LOG_LEVEL_FILE: write("level", "debug") });
    expect(config.LOG_LEVEL).toBe("info");
  });

  it("reads the secrets a mounted Secret directory holds (EARSHOT_SECRETS_DIR), leaving the absent ones unset", () => {
    const dir = join(tmp.dir, "secret");
    mkdirSync(dir);
    writeFileSync(join(dir, "EARSHOT_CALLER_SIGNING_KEY"), KEY);
    writeFileSync(join(dir, "MONGO_URL"), "mongodb://db/?replicaSet=rs0\n");
    writeFileSync(join(dir, "LOG_LEVEL"), "debug");
    const config = loadConfig(baseConfigSchema, { EARSHOT_SECRETS_DIR: dir });
    expect(config).toMatchObject({ EARSHOT_CALLER_SIGNING_KEY: KEY, MONGO_URL: "mongodb://db/?replicaSet=rs0", LOG_LEVEL: "info" });
    expect(config.EARSHOT_OPERATOR_KEY).toBeUndefined();
    // A secret also set in the environment is given twice.
    expect(problemsOf(() => loadConfig(baseConfigSchema, { EARSHOT_SECRETS_DIR: dir, MONGO_URL: "mongodb://other/" }))).toEqual([
      `MONGO_URL: set both as MONGO_URL and in EARSHOT_SECRETS_DIR (${join(dir, "MONGO_URL")}); give one`,
    ]);
    // <NAME>_FILE names the file of its one setting, over the directory.
    expect(loadConfig(baseConfigSchema, { EARSHOT_SECRETS_DIR: dir, MONGO_URL_FILE: write("mongo", "mongodb://mine/") }).MONGO_URL).toBe("mongodb://mine/");
  });

  it("refuses an EARSHOT_SECRETS_DIR that is not a directory", () => {
    const missing = join(tmp.dir, "nowhere");
    expect(problemsOf(() => loadConfig(baseConfigSchema, { EARSHOT_SECRETS_DIR: missing }))).toEqual([`EARSHOT_SECRETS_DIR: ${missing} is not a readable directory`]);
  });

  it("satisfies cluster mode's required secrets from files", () => {
    const config = loadConfig(baseConfigSchema, {
      EARSHOT_MODE: "cluster",
      KAFKA_BROKERS: "kafka:9092",
      MONGO_URL_FILE: write("mongo", "mongodb://db/?replicaSet=rs0"),
      EARSHOT_CALLER_SIGNING_KEY_FILE: write("signing", KEY),
    });
    expect(config.MONGO_URL).toBe("mongodb://db/?replicaSet=rs0");
  });
});
