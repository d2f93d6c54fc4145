import { runCli } from "./commands";
import { readEnv } from "./config";

void runCli(process.argv.slice(2), readEnv(), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then((code) => {
  process.exitCode = code;
});
