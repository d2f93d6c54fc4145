// Refused sign-in latency for a known and an unknown email, not throttled, held by the email's ceiling
// and refused for the (email, address) pair: the Authenticate RPC over a real loopback gRPC hop to the
// account service on the embedded store, real scrypt. Known and unknown attempts alternate so drift hits
// both alike. Run with `make bench` (or node services/platform/test/ts-child.js bench/sign-in-bench.ts
// after make build); results are recorded in bench/README.md. Timing belongs here, never in a test.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { accountService } from "@earshot/account";
import { baseConfigSchema, createGrpcClient, createInProcessBus, createMailer, hostService, loadConfig, silentLogger } from "@earshot/platform";
import { accountV1 } from "@earshot/proto";
import { runBench } from "./bench-support";

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 30);
const WRONG = "not the password";

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;

type Client = accountV1.AccountServiceClient & { authenticate(req: accountV1.AuthenticateRequest): Promise<accountV1.AuthenticateResponse> };

/** One refused attempt: its latency and what it answered (the gRPC status details). */
const attempt = async (client: Client, email: string, from: string): Promise<{ ms: number; answer: string }> => {
  const t = process.hrtime.bigint();
  try {
    await client.authenticate({ email, password: WRONG, clientAddress: from });
    return { ms: ms(t), answer: "signed in" };
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return { ms: ms(t), answer: `${e.code ?? "?"}: ${e.message ?? ""}` };
  }
};

interface Case {
  samples: number[];
  answers: Set<string>;
}

const report = (name: string, known: Case, unknown: Case) => {
  const row = (who: string, c: Case) => {
    const sorted = [...c.samples].sort((a, b) => a - b);
    return `${who.padEnd(8)} n=${String(sorted.length).padStart(3)}  median ${quantile(sorted, 0.5).toFixed(1).padStart(7)} ms  p90 ${quantile(sorted, 0.9).toFixed(1).padStart(7)} ms  answers: ${[...c.answers].join(" | ")}`;
  };
  process.stdout.write(`${name}\n  ${row("known", known)}\n  ${row("unknown", unknown)}\n`);
};

const newCase = (): Case => ({ samples: [], answers: new Set() });
const take = (c: Case, r: { ms: number; answer: string }) => {
  c.samples.push(r.ms);
  c.answers.add(r.answer);
};

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "earshot-bench-"));
  const config = loadConfig(baseConfigSchema, { EARSHOT_DATA_DIR: dir, LOG_LEVEL: "silent" });
  const logger = silentLogger();
  const bus = createInProcessBus();
  const mailer = createMailer({ from: "bench@earshot.local", dataDir: dir, logger });
  const hosted = await hostService(accountService, { config, host: "127.0.0.1", port: 0, bus, logger, mailer });
  const { client, close } = createGrpcClient(accountV1.AccountServiceClient, hosted.address);
  const rpc = client as unknown as Client;
  try {
    process.stdout.write(`node ${process.version}, ${new Date().toISOString()}, ${ACCOUNTS} known and ${ACCOUNTS} unknown emails\n`);
    // Each phase guesses emails of its own, so one phase's failures do not throttle the next.
    const emails = (kind: string, phase: string) => Array.from({ length: ACCOUNTS }, (_, i) => `${kind}-${phase}${i}@example.com`);
    const known = emails("known", "a");
    const unknown = emails("unknown", "a");
    const knownB = emails("known", "b");
    const unknownB = emails("unknown", "b");
    for (const email of [...known, ...knownB]) await client.createUser({ email, name: "Bench", password: "benchmark-password" });
    await attempt(rpc, "warm@example.com", "10.255.0.1");

    // Not throttled: every attempt from an address of its own, 9 per email (the ceiling starts at 10).
    const fresh = { known: newCase(), unknown: newCase() };
    for (let round = 0; round < 9; round++) {
      for (let i = 0; i < ACCOUNTS; i++) {
        take(fresh.known, await attempt(rpc, known[i]!, `10.1.${round}.${i}`));
        take(fresh.unknown, await attempt(rpc, unknown[i]!, `10.2.${round}.${i}`));
      }
    }
    report("not throttled (each attempt from a new address)", fresh.known, fresh.unknown);

    // Held: the 11th, 12th … failure of an email from yet other addresses (held 250 ms, 500 ms, 1 s, 2 s).
    await attempt(rpc, known[0]!, "10.3.9.0");
    await attempt(rpc, unknown[0]!, "10.4.9.0");
    const held = { known: newCase(), unknown: newCase() };
    for (let round = 0; round < 4; round++) {
      take(held.known, await attempt(rpc, known[0]!, `10.3.${round}.0`));
      take(held.unknown, await attempt(rpc, unknown[0]!, `10.4.${round}.0`));
    }
    report("held by the email's ceiling (4 attempts: 250 ms, 500 ms, 1 s, 2 s)", held.known, held.unknown);

    // Refused: one address per email guesses past its 5 free failures; only the refusals are timed.
    const refused = { known: newCase(), unknown: newCase() };
    for (let i = 0; i < ACCOUNTS; i++) {
      for (let n = 0; n < 5; n++) {
        await attempt(rpc, knownB[i]!, `10.5.0.${i}`);
        await attempt(rpc, unknownB[i]!, `10.6.0.${i}`);
      }
      for (let n = 0; n < 9; n++) {
        take(refused.known, await attempt(rpc, knownB[i]!, `10.5.0.${i}`));
        take(refused.unknown, await attempt(rpc, unknownB[i]!, `10.6.0.${i}`));
      }
    }
    report("refused for the (email, address) pair", refused.known, refused.unknown);
  } finally {
    close();
    await hosted.stop(1000);
    await bus.close();
    await rm(dir, { recursive: true, force: true });
  }
};

runBench(main);
