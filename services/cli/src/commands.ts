import { parseArgs } from "node:util";
import { ALL_SCOPES } from "@earshot/account/scopes";
import { type AsyncClient, createGrpcClient, isDomainError } from "@earshot/platform";
import { accountV1 } from "@earshot/proto";
import { type Env, resolveAccountAddress, UsageError } from "./config";

// `earshot user create | key create | account reactivate`, as a function of (argv, env, io) so every path
// is testable without spawning a process. Exit codes: 0 done, 1 refused or failed, 64 bad usage.

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 64;

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  /** All of standard input, for --password-stdin. */
  readStdin?: () => Promise<string>;
  /** The time --expires-in counts from. */
  now?: () => Date;
}

type AccountClient = AsyncClient<accountV1.AccountServiceClient>;

interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  value?: string;
  help: string;
}

interface Command {
  name: string;
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  /** Checks its options first, then calls `client()`, so bad usage never needs a running service. */
  run(values: Values, io: Io, client: () => Promise<AccountClient>): Promise<void>;
}

type Values = Record<string, string | boolean | undefined>;

const COMMON: Record<string, OptionSpec> = {
  "account-addr": { type: "string", value: "host:port", help: "the account service (default: EARSHOT_ACCOUNT_GRPC_ADDR, else <EARSHOT_DATA_DIR>/services.json)" },
  help: { type: "boolean", short: "h", help: "show help" },
};

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30d`, `12h`, `15m`, `90s` → milliseconds. */
export const parseDuration = (text: string): number => {
  const m = /^(\d{1,9})([smhd])$/.exec(text.trim());
  const ms = m ? Number(m[1]) * (UNITS[m[2] as string] as number) : 0;
  if (!(ms > 0)) throw new UsageError(`--expires-in must be a positive number and a unit s, m, h or d (like 30d, 12h, 15m, 90s), not "${text}".`);
  return ms;
};

const text = (values: Values, flag: string): string | undefined => {
  const v = values[flag];
  return typeof v === "string" ? v : undefined;
};

const required = (values: Values, flag: string): string => {
  const v = text(values, flag);
  if (v === undefined || v === "") throw new UsageError(`--${flag} is required.`);
  return v;
};

const readPassword = async (values: Values, io: Io): Promise<string> => {
  if (values["password-stdin"]) {
    if (text(values, "password") !== undefined) throw new UsageError("Give --password or --password-stdin, not both.");
    if (!io.readStdin) throw new UsageError("--password-stdin needs standard input.");
    const password = (await io.readStdin()).replace(/\r?\n$/, "");
    if (!password) throw new UsageError("--password-stdin read an empty password.");
    return password;
  }
  const password = text(values, "password");
  if (!password) throw new UsageError("--password (or --password-stdin) is required.");
  return password;
};

const COMMANDS: Command[] = [
  {
    name: "user create",
    summary: "create a user and the workspace they own",
    usage: "earshot user create --email E --name N (--password P | --password-stdin)",
    options: {
      email: { type: "string", value: "E", help: "sign-in email (stored lower-case, unique)" },
      name: { type: "string", value: "N", help: "display name, 1 to 100 characters" },
      password: { type: "string", value: "P", help: "8 to 200 characters (visible in shell history and ps)" },
      "password-stdin": { type: "boolean", help: "read the password from standard input instead" },
    },
    run: async (values, io, client) => {
      const email = required(values, "email");
      const name = required(values, "name");
      const password = await readPassword(values, io);
      const { user, workspace } = await (await client()).createUser({ email, name, password });
      io.out(`Created user ${user?.id} <${user?.email}> with workspace ${workspace?.id ?? user?.workspaceId}.`);
    },
  },
  {
    name: "key create",
    summary: "create an API key for a user (the key is printed once)",
    usage: "earshot key create --email E --scopes a:read,b:write [--name N] [--expires-in 30d]",
    options: {
      email: { type: "string", value: "E", help: "the user the key acts for" },
      scopes: { type: "string", value: "LIST", help: `comma-separated; any of ${ALL_SCOPES.join(", ")}` },
      name: { type: "string", value: "N", help: 'a label, 1 to 100 characters (default "API key")' },
      "expires-in": { type: "string", value: "DURATION", help: "lifetime: a number and s, m, h or d (default: never expires)" },
    },
    run: async (values, io, client) => {
      const email = required(values, "email");
      const scopes = required(values, "scopes").split(",").map((s) => s.trim()).filter(Boolean);
      if (scopes.length === 0) throw new UsageError("--scopes must name at least one scope.");
      const expiresIn = text(values, "expires-in");
      const expiresAt = expiresIn === undefined ? undefined : new Date((io.now ?? (() => new Date()))().getTime() + parseDuration(expiresIn));
      const account = await client();
      const { user } = await account.getUser({ email });
      // An operator call: the CLI holds no credential, so the key may have any valid scope.
      const { apiKey, plaintext } = await account.createApiKey({
        userId: user?.id ?? "",
        name: text(values, "name") ?? "",
        scopes,
        expiresAt,
        granterScopes: [],
        operator: true,
      });
      const expiry = apiKey?.expiresAt ? `, expiring ${apiKey.expiresAt.toISOString()}` : ", never expiring";
      io.out(`Created API key ${apiKey?.id} "${apiKey?.name}" for ${user?.email} with scopes ${apiKey?.scopes.join(",")}${expiry}.`);
      io.out("Store it now: it will not be shown again.");
      io.out(plaintext);
    },
  },
  {
    name: "account reactivate",
    summary: "reactivate a deactivated account (keys work again, projects resume)",
    usage: "earshot account reactivate --email E",
    options: {
      email: { type: "string", value: "E", help: "the account's email" },
    },
    run: async (values, io, client) => {
      const email = required(values, "email");
      const account = await client();
      const { user: before } = await account.getUser({ email });
      if (before?.status === "active") {
        io.out(`${before.email} is active already; nothing to do.`);
        return;
      }
      const { user } = await account.reactivateUser({ email });
      io.out(`Reactivated ${user?.email}: their keys work again and their projects resume.`);
    },
  },
];

const optionLines = (options: Record<string, OptionSpec>): string[] =>
  Object.entries(options).map(([flag, o]) => {
    const left = `${o.short ? `-${o.short}, ` : "    "}--${flag}${o.value ? ` ${o.value}` : ""}`;
    return `  ${left.padEnd(32)} ${o.help}`;
  });

export const mainHelp = (): string =>
  [
    "Usage: earshot <command> [options]",
    "",
    "The Earshot operator CLI; it talks to the account service over gRPC.",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(20)} ${c.summary}`),
    "",
    "Options:",
    ...optionLines(COMMON),
    "",
    "Run `earshot <command> --help` (or `earshot help <command>`) for a command's options.",
    "Exit codes: 0 done, 1 refused by the service or failed, 64 bad usage.",
  ].join("\n");

export const commandHelp = (c: Command): string =>
  [`Usage: ${c.usage}`, "", `${c.summary[0]?.toUpperCase()}${c.summary.slice(1)}.`, "", "Options:", ...optionLines({ ...c.options, ...COMMON })].join("\n");

const ALL_OPTIONS = Object.fromEntries(
  [COMMON, ...COMMANDS.map((c) => c.options)].flatMap((o) => Object.entries(o)).map(([flag, o]) => [flag, { type: o.type, ...(o.short ? { short: o.short } : {}) }]),
) as Record<string, { type: "string" | "boolean"; short?: string }>;

const findCommand = (positionals: string[]): Command | undefined => COMMANDS.find((c) => c.name === positionals.join(" "));

export const runCli = async (argv: string[], env: Env, io: Io): Promise<number> => {
  // `npx earshot -- --help` hands the CLI its `--` too.
  const args = argv[0] === "--" ? argv.slice(1) : argv;
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args, options: ALL_OPTIONS, allowPositionals: true, strict: true }));
  } catch (err) {
    io.err(`${(err as Error).message}\n\nRun \`earshot --help\` for usage.`);
    return EXIT_USAGE;
  }

  if (positionals[0] === "help") {
    const target = findCommand(positionals.slice(1));
    if (positionals.length > 1 && !target) {
      io.err(`Unknown command "${positionals.slice(1).join(" ")}".\n\n${mainHelp()}`);
      return EXIT_USAGE;
    }
    io.out(target ? commandHelp(target) : mainHelp());
    return EXIT_OK;
  }
  const command = findCommand(positionals);
  if (!command) {
    if (positionals.length === 0 && values.help) {
      io.out(mainHelp());
      return EXIT_OK;
    }
    io.err(`${positionals.length === 0 ? "No command given." : `Unknown command "${positionals.join(" ")}".`}\n\n${mainHelp()}`);
    return EXIT_USAGE;
  }
  if (values.help) {
    io.out(commandHelp(command));
    return EXIT_OK;
  }
  const stray = Object.keys(values).filter((flag) => !(flag in command.options) && !(flag in COMMON));
  if (stray.length > 0) {
    io.err(`${stray.map((f) => `--${f}`).join(", ")} does not apply to ${command.name}.\n\n${commandHelp(command)}`);
    return EXIT_USAGE;
  }

  let handle: { client: AccountClient; close: () => void } | undefined;
  let address: string | undefined;
  let locating = false;
  const client = async () => {
    locating = true;
    address = await resolveAccountAddress(text(values, "account-addr"), env);
    locating = false;
    handle = createGrpcClient(accountV1.AccountServiceClient, address, { deadlineMs: 10_000 });
    return handle.client;
  };
  try {
    await command.run(values, io, client);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      // Not finding the service is not helped by the command's options list.
      io.err(locating ? err.message : `${err.message}\n\n${commandHelp(command)}`);
      return EXIT_USAGE;
    }
    if (isDomainError(err)) {
      const fields = err.errors.map((e) => `\n  ${e.path}: ${e.message}`).join("");
      const hint = err.code === "unavailable" ? `\nIs Earshot running? The account service was expected at ${address}.` : "";
      io.err(`${err.message}${fields}${hint}`);
      return EXIT_FAILED;
    }
    io.err(`Unexpected failure: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT_FAILED;
  } finally {
    handle?.close();
  }
};
