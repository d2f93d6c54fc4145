#!/usr/bin/env node
import { runCli } from "./commands";
import { readEnv } from "./config";

// The process around runCli: real argv, env, stdio and exit code. `npx earshot` reaches this through
// bin/earshot.js, which exists before the build and explains when dist/ is missing.

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
};

void runCli(process.argv.slice(2), readEnv(), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  readStdin,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`Unexpected failure: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
