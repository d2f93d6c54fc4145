import { access, constants, stat } from "node:fs/promises";
import { parseArgs } from "node:util";
import { ALL_SCOPES } from "@earshot/account/scopes";
import { isDomainError, isId } from "@earshot/platform/core";
import { type AsyncClient, createGrpcClient, type GrpcTls, grpcTlsFromSettings, grpcTlsProblems } from "@earshot/platform/grpc";
import { accountV1, digestV1, mentionV1 } from "@earshot/proto";
import { backupDataDir, restoreDataDir } from "@earshot/platform";
import { type CliService, DEFAULT_DATA_DIR, type Env, operatorKeyHint, resolveOperatorKey, resolveServiceAddress, UsageError } from "./config";
import { postFormatHelp } from "./post-format";
import { DEFAULT_BATCH_SIZE, importPosts, MAX_BATCH_SIZE } from "./posts-import";
import { CommandFailed, expectedFailure, failureLine, messageOf } from "./failures";
import { runSetup } from "./setup";

// `earshot user create | key create | account reactivate | posts import`, as a function of (argv, env, io)
// so every path is testable without spawning a process. Exit codes: 0 done, 1 refused or failed (or, for
// an import, some lines were not posts), 64 bad usage.

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

interface Clients {
  account: AsyncClient<accountV1.AccountServiceClient>;
  mention: AsyncClient<mentionV1.MentionServiceClient>;
  digest: AsyncClient<digestV1.DigestServiceClient>;
}

const DEADLINE_MS = 30_000;

/** A client of each service the CLI calls, and how to let it go. */
// Every call is signed as the operator's with EARSHOT_OPERATOR_KEY (in a cluster, the pods' Secret holds it),
// else with the operator key in the data directory (the all-in-one's): services with signing keys refuse
// any call without it. Under mutual TLS
// (EARSHOT_GRPC_TLS_*, which a pod of the chart has) it presents the pod's certificate, as the services do.
interface Credentials {
  operatorKey: string | undefined;
  tls: GrpcTls | undefined;
}
const clientOptions = ({ operatorKey, tls }: Credentials) => ({ deadlineMs: DEADLINE_MS, operatorKey, ...(tls ? { tls } : {}) });
const CONNECT: { [S in CliService]: (address: string, credentials: Credentials) => { client: Clients[S]; close: () => void } } = {
  account: (address, credentials) => createGrpcClient(accountV1.AccountServiceClient, address, clientOptions(credentials)),
  mention: (address, credentials) => createGrpcClient(mentionV1.MentionServiceClient, address, clientOptions(credentials)),
  digest: (address, credentials) => createGrpcClient(digestV1.DigestServiceClient, address, clientOptions(credentials)),
};

/** The command's service, located and connected on first use (so bad usage never needs it running). */
type Connect<S extends CliService> = () => Promise<Clients[S]>;

interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  value?: string;
  help: string;
}

interface Command<S extends CliService = CliService> {
  name: string;
  summary: string;
  usage: string;
  /** The service it calls; its address option (`--<service>-addr`) comes with the command. None: it works on the data directory. */
  service?: S;
  options: Record<string, OptionSpec>;
  /** More help after the options (an input format). */
  details?: () => string[];
  /** Checks its options first, then calls `client()`, so bad usage never needs a running service. */
  run(values: Values, io: Io, client: Connect<S>, env: Env): Promise<number | void>;
}

/** A command with the client of its own service, listed among the others. */
const command = <S extends CliService>(c: Command<S>): Command => c as unknown as Command;

type Values = Record<string, string | boolean | undefined>;

const COMMON: Record<string, OptionSpec> = {
  help: { type: "boolean", short: "h", help: "show help" },
};

const addressOption = (service: CliService): Record<string, OptionSpec> => ({
  [`${service}-addr`]: {
    type: "string",
    value: "host:port",
    help: `the ${service} service (default: EARSHOT_${service.toUpperCase()}_GRPC_ADDR, else <EARSHOT_DATA_DIR>/services.json)`,
  },
});

const ADDRESS_OPTIONS: Record<string, OptionSpec> = { ...addressOption("account"), ...addressOption("mention"), ...addressOption("digest") };

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

const MAX_PARTITIONS = 10_000;
const MAX_REPLICATION = 32_767;

/** A whole-number option from 1 to max, or its default. */
const wholeNumber = (values: Values, flag: string, fallback: number, max: number): number => {
  const given = text(values, flag);
  if (given === undefined) return fallback;
  const n = /^\d{1,5}$/.test(given) ? Number(given) : 0;
  if (n < 1 || n > max) throw new UsageError(`--${flag} must be a whole number from 1 to ${max}, not "${given}".`);
  return n;
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
  command({
    name: "user create",
    service: "account",
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
  }),
  command({
    name: "key create",
    service: "account",
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
  }),
  command({
    name: "account reactivate",
    service: "account",
    summary: "reactivate a deactivated account (keys work again, projects resume)",
    usage: "earshot account reactivate --email E",
    options: {
      email: { type: "string", value: "E", help: "the account's email" },
    },
    run: async (values, io, client) => {
      const email = required(values, "email");
      const account = await client();
      const { user: before } = await account.getUser({ email });
      if (before?.status === accountV1.UserStatus.USER_STATUS_ACTIVE) {
        io.out(`${before.email} is active already; nothing to do.`);
        return;
      }
      const { user } = await account.reactivateUser({ email });
      io.out(`Reactivated ${user?.email}: their keys work again and their projects resume.`);
    },
  }),
  command({
    name: "posts import",
    service: "mention",
    summary: "match the posts of a JSONL file into a project's mentions, as collected posts are",
    usage: "earshot posts import --project prj_... --file posts.jsonl [--batch-size 500]",
    options: {
      project: { type: "string", value: "ID", help: "the project the posts are for (a line's own projectId is ignored)" },
      file: { type: "string", value: "FILE", help: "one post per line as JSON (the line format below)" },
      "batch-size": { type: "string", value: "N", help: `posts per call, 1 to ${MAX_BATCH_SIZE} (default ${DEFAULT_BATCH_SIZE})` },
    },
    details: postFormatHelp,
    run: async (values, io, client) => {
      const projectId = required(values, "project");
      if (!isId("prj", projectId)) throw new UsageError(`--project must be a project id (prj_ and 26 characters), not "${projectId}".`);
      const file = required(values, "file");
      const size = text(values, "batch-size") ?? String(DEFAULT_BATCH_SIZE);
      const batchSize = /^\d{1,4}$/.test(size) ? Number(size) : 0;
      if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) throw new UsageError(`--batch-size must be a whole number from 1 to ${MAX_BATCH_SIZE}, not "${size}".`);
      await access(file, constants.R_OK).catch((err: NodeJS.ErrnoException) => {
        throw new UsageError(`--file: cannot read ${file} (${err.code ?? err.message}).`);
      });
      if ((await stat(file)).isDirectory()) throw new UsageError(`--file: ${file} is a directory, not a file of posts.`);
      const mention = await client();
      const shownBad = 100;
      let bad = 0;
      const totals = await importPosts({
        file,
        projectId,
        batchSize,
        ingest: (posts) => mention.ingestPosts({ posts }),
        badLine: (line, reason) => {
          bad += 1;
          if (bad <= shownBad) io.err(`line ${line}: ${reason}`);
        },
      });
      if (bad > shownBad) io.err(`... and ${bad - shownBad} more bad lines.`);
      // Lines, not posts: a bad line is not a post.
      io.out(`Read ${totals.lines} lines from ${file} for ${projectId}: ${totals.lines - totals.bad} posts, ${totals.bad} bad lines.`);
      io.out(`created ${totals.created}, duplicates ${totals.duplicates}, unmatched ${totals.unmatched}, skipped ${totals.skipped} (project paused, archived or unknown)`);
      return totals.bad > 0 ? EXIT_FAILED : EXIT_OK;
    },
  }),
  command({
    name: "digest send",
    service: "digest",
    summary: "email a project's digest of the last 24 hours now (to check the template), outside the once-a-day send",
    usage: "earshot digest send --project prj_... [--date YYYY-MM-DD]",
    options: {
      project: { type: "string", value: "ID", help: "the project whose digest rules to send" },
      date: { type: "string", value: "YYYY-MM-DD", help: "send the digest that local date's scheduled send covers (default: the 24 hours up to now)" },
    },
    run: async (values, io, client) => {
      const projectId = required(values, "project");
      if (!isId("prj", projectId)) throw new UsageError(`--project must be a project id (prj_ and 26 characters), not "${projectId}".`);
      const date = text(values, "date") ?? "";
      if (date && !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new UsageError(`--date must be YYYY-MM-DD, not "${date}".`);
      const digest = await client();
      const res = await digest.sendDigest({ projectId, localDate: date });
      const span = res.windowStart && res.windowEnd ? ` matched from ${res.windowStart.toISOString()} to ${res.windowEnd.toISOString()}` : "";
      if (res.emailsSent === 0) {
        throw new CommandFailed(`No digest sent for ${projectId}: the digest service knows no active project by that id with an active owner and a rule with the digest on.`);
      }
      io.out(`Sent ${res.emailsSent} digest email${res.emailsSent === 1 ? "" : "s"} for ${projectId} (${res.mentions} mentions${span}), marked as a manual send.`);
    },
  }),
  command({
    name: "backup",
    summary: "write a consistent backup of every service's data (the embedded store) to one file, while Earshot runs",
    usage: "earshot backup --to FILE [--data-dir DIR]",
    options: {
      to: { type: "string", value: "FILE", help: "the archive to write (.tar.gz); an existing file is replaced only when the backup is whole" },
      "data-dir": { type: "string", value: "DIR", help: "the data directory (default: EARSHOT_DATA_DIR, else ./.data)" },
    },
    run: async (values, io, _client, env) => {
      const to = required(values, "to");
      const dir = text(values, "data-dir") ?? (env.EARSHOT_DATA_DIR || DEFAULT_DATA_DIR);
      const res = await backupDataDir(dir, to);
      io.out(`Backed up ${res.stores.length} service stores (${res.stores.join(", ")}) and ${res.files - res.stores.length} other files to ${to} (${res.bytes} bytes).`);
    },
  }),
  command({
    name: "restore",
    summary: "unpack a backup into an empty data directory (then start Earshot on it)",
    usage: "earshot restore --from FILE [--data-dir DIR]",
    options: {
      from: { type: "string", value: "FILE", help: "an archive written by `earshot backup`" },
      "data-dir": { type: "string", value: "DIR", help: "the empty or missing data directory to fill (default: EARSHOT_DATA_DIR, else ./.data)" },
    },
    run: async (values, io, _client, env) => {
      const from = required(values, "from");
      const dir = text(values, "data-dir") ?? (env.EARSHOT_DATA_DIR || DEFAULT_DATA_DIR);
      const res = await restoreDataDir(from, dir);
      io.out(`Restored ${res.stores.length} service stores and ${res.files - res.stores.length} other files into ${dir}.`);
    },
  }),
  command({
    name: "setup",
    summary: "create every service's store indexes and every Kafka topic before the services start (idempotent)",
    usage: "earshot setup [--partitions 6] [--replication-factor 1] [--data-dir DIR]",
    options: {
      partitions: { type: "string", value: "N", help: `partitions of each topic created, 1 to ${MAX_PARTITIONS} (default 6); existing topics are kept` },
      "replication-factor": { type: "string", value: "N", help: "replicas of each topic created (default 1; 3 on a cluster of three brokers or more)" },
      "data-dir": { type: "string", value: "DIR", help: "the embedded store's data directory, without MONGO_URL (default: EARSHOT_DATA_DIR, else ./.data)" },
    },
    details: () => [
      "Reads the services' settings from the environment: MONGO_URL and MONGO_DB_PREFIX (else the embedded",
      "store under the data directory), KAFKA_BROKERS (else no topic is created), EARSHOT_MODE=cluster (then",
      "both are required). The services create what is missing themselves too; this does it once, first.",
    ],
    run: async (values, io, _client, env) => {
      const partitions = wholeNumber(values, "partitions", 6, MAX_PARTITIONS);
      const replicationFactor = wholeNumber(values, "replication-factor", 1, MAX_REPLICATION);
      const dataDir = text(values, "data-dir");
      await runSetup({ env, partitions, replicationFactor, out: io.out, ...(dataDir ? { dataDir } : {}) });
      io.out("Setup done.");
    },
  }),
];

/** Every command's name (`user create`, `backup`, …), in the order `--help` lists them. */
export const commandNames = (): string[] => COMMANDS.map((c) => c.name);

const optionLines = (options: Record<string, OptionSpec>): string[] =>
  Object.entries(options).map(([flag, o]) => {
    const left = `${o.short ? `-${o.short}, ` : "    "}--${flag}${o.value ? ` ${o.value}` : ""}`;
    return `  ${left.padEnd(32)} ${o.help}`;
  });

export const mainHelp = (): string =>
  [
    "Usage: earshot <command> [options]",
    "",
    "The Earshot operator CLI; it talks to Earshot's services over gRPC.",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(20)} ${c.summary}`),
    "",
    "Options:",
    ...optionLines({ ...ADDRESS_OPTIONS, ...COMMON }),
    "",
    "Run `earshot <command> --help` (or `earshot help <command>`) for a command's options.",
    "Exit codes: 0 done, 1 refused by the service or failed (posts import: or some lines were bad), 64 bad usage.",
  ].join("\n");

/** A command's help; after a usage error without its details, so that the error stays in view. */
export const commandHelp = (c: Command, withDetails = true): string =>
  [
    `Usage: ${c.usage}`,
    "",
    `${c.summary[0]?.toUpperCase()}${c.summary.slice(1)}.`,
    "",
    "Options:",
    ...optionLines({ ...c.options, ...(c.service ? addressOption(c.service) : {}), ...COMMON }),
    ...(withDetails && c.details ? ["", ...c.details()] : []),
  ].join("\n");

const ALL_OPTIONS = Object.fromEntries(
  [COMMON, ADDRESS_OPTIONS, ...COMMANDS.map((c) => c.options)].flatMap((o) => Object.entries(o)).map(([flag, o]) => [flag, { type: o.type, ...(o.short ? { short: o.short } : {}) }]),
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
  const own = { ...command.options, ...(command.service ? addressOption(command.service) : {}), ...COMMON };
  const stray = Object.keys(values).filter((flag) => !(flag in own));
  if (stray.length > 0) {
    io.err(`${stray.map((f) => `--${f}`).join(", ")} does not apply to ${command.name}.\n\n${commandHelp(command, false)}`);
    return EXIT_USAGE;
  }

  let handle: { close: () => void } | undefined;
  let address: string | undefined;
  let locating = false;
  const client = async () => {
    const service = command.service as CliService;
    locating = true;
    address = await resolveServiceAddress(service, text(values, `${service}-addr`), env);
    // Like the address, a key that cannot be had is not helped by the command's options list.
    const operatorKey = await resolveOperatorKey(env);
    locating = false;
    const problems = grpcTlsProblems(env);
    if (problems.length > 0) throw new UsageError(problems.join("\n"));
    let tls: GrpcTls | undefined;
    try {
      tls = grpcTlsFromSettings(env);
    } catch (err) {
      throw new UsageError(`EARSHOT_GRPC_TLS_*: ${(err as Error).message}`);
    }
    const connected = CONNECT[service](address, { operatorKey, tls });
    handle = connected;
    return connected.client;
  };
  try {
    return (await command.run(values, io, client, env)) ?? EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      // Not finding the service is not helped by the command's options list.
      io.err(locating ? err.message : `${err.message}\n\n${commandHelp(command, false)}`);
      return EXIT_USAGE;
    }
    if (isDomainError(err)) {
      const fields = err.errors.map((e) => `${e.path}: ${e.message}`).join("; ");
      const hint = !command.service
        ? ""
        : err.code === "unavailable"
          ? `\nIs Earshot running? The ${command.service} service was expected at ${address}.`
          : err.code === "unauthorized"
            ? `\n${operatorKeyHint(env)}`
            : "";
      // One line, as every expected failure.
      io.err(failureLine(err.message, fields, hint));
      return EXIT_FAILED;
    }
    const expected = expectedFailure(err);
    if (expected !== undefined) {
      io.err(expected);
      return EXIT_FAILED;
    }
    io.err(failureLine(`Unexpected failure: ${messageOf(err)}`));
    return EXIT_FAILED;
  } finally {
    handle?.close();
  }
};
