import { spawn } from "node:child_process";
import { join } from "node:path";

/**
 * Runs a fixture (`fixtures/<name>.ts <dir>`) that prints `ack <n>` once each unit of its work is durable,
 * and kills it with SIGKILL once it has acknowledged `acks` of them. It keeps working while the signal
 * travels, so the kill lands in the middle of some later unit. Resolves with the last acknowledged n.
 */
export const runUntilKilled = (fixture: string, dir: string, acks: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, "ts-child.js"), join(__dirname, "fixtures", `${fixture}.ts`), dir], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let last = -1;
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const lines = out.split("\n");
      out = lines.pop() ?? "";
      for (const line of lines) last = Number(line.slice("ack ".length));
      if (last + 1 >= acks && !child.killed) child.kill("SIGKILL");
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code, signal) => (signal === "SIGKILL" ? resolve(last) : reject(new Error(`${fixture} exited ${code}: ${err}`))));
  });
