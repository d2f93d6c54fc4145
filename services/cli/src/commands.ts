import { parseArgs } from "node:util";
import { ALL_SCOPES, createGrpcClient, isDomainError } from "@earshot/platform";
import { accountV1 } from "@earshot/proto";
import { type Env, resolveAccountAddress, UsageError } from "./config";

// `earshot user create | key create | account reactivate`, as functions of (argv, env, output) so they
// are testable without spawning a process. Exit codes: 0 ok, 1 refused by the service, 64 bad usage.

export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}

const HELP = `Usage: earshot <command> [options]

Commands:
  user create --email E --name N --password P        create a user (and their workspace)
  key create --email E --scopes a:read,b:write        create an API key (printed once)
             [--name N] [--expires-in 30d]
  account reactivate --email E                        reactivate a deactivated account

Options:
  --account-addr host:port   the account service (default: EARSHOT_ACCOUNT_GRPC_ADDR, or the running
                             Earshot's <EARSHOT_DATA_DIR>/services.json)
  -h, --help                 show this help

Scopes: ${ALL_SCOPES.join(", ")}`;

const OPTIONS = {
  email: { type: "string" },
  name: { type: "string" },
  password: { type: "string" },
  scopes: { type: "string" },
  "expires-in": { type: "string" },
  "account-addr": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export const parseDuration = (text: string): number => {
  const m = /^(\d+)([smhd])$/.exec(text);
  if (!m) throw new UsageError(`--expires-in must look like 30d, 12h, 15m or 90s, not "${text}".`);
  return Number(m[1]) * (UNITS[m[2] as string] as number);
};

const need = (value: string | undefined, flag: string): string => {
  if (!value) throw new UsageError(`--${flag} is required.`);
  return value;
};

export const runCli = async (argv: string[], env: Env, io: Output, now: () => Date = () => new Date()): Promise<number> => {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${HELP}`);
    return 64;
  }
  const { values, positionals } = parsed;
  const command = positionals.join(" ");
  if (values.help || positionals.length === 0) {
    io.out(HELP);
    return values.help ? 0 : 64;
  }
  try {
    if (!["user create", "key create", "account reactivate"].includes(command)) throw new UsageError(`Unknown command "${command}".`);
    const address = await resolveAccountAddress(values["account-addr"], env);
    const { client, close } = createGrpcClient(accountV1.AccountServiceClient, address, { deadlineMs: 10_000 });
    try {
      if (command === "user create") {
        const { user, workspace } = await client.createUser({
          email: need(values.email, "email"),
          name: need(values.name, "name"),
          password: need(values.password, "password"),
        });
        io.out(`Created user ${user?.id} <${user?.email}> with workspace ${workspace?.id ?? user?.workspaceId}.`);
      } else if (command === "key create") {
        const email = need(values.email, "email");
        const scopes = need(values.scopes, "scopes").split(",").map((s) => s.trim()).filter(Boolean);
        const expiresAt = values["expires-in"] ? new Date(now().getTime() + parseDuration(values["expires-in"])) : undefined;
        const { user } = await client.getUser({ email });
        const { apiKey, plaintext } = await client.createApiKey({
          userId: user?.id ?? "",
          name: values.name ?? "CLI key",
          scopes,
          expiresAt,
          granterScopes: [],
          operator: true,
        });
        io.out(`Created key ${apiKey?.id} for ${email} with scopes ${apiKey?.scopes.join(",")}${expiresAt ? `, expiring ${expiresAt.toISOString()}` : ""}.`);
        io.out("Store it now: it will not be shown again.");
        io.out(plaintext);
      } else {
        const { user } = await client.reactivateUser({ email: need(values.email, "email") });
        io.out(`Reactivated ${user?.email}; their keys work again and their projects resume.`);
      }
      return 0;
    } finally {
      close();
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(err.message);
      return 64;
    }
    if (isDomainError(err)) {
      const fields = err.errors.map((e) => `\n  ${e.path}: ${e.message}`).join("");
      io.err(`${err.message}${fields}`);
      return 1;
    }
    io.err(`Unexpected failure: ${(err as Error).message}`);
    return 1;
  }
};
