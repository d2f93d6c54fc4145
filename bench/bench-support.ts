// What every benchmark script shares: how it runs, a process's processor time, percentiles.
import { readFileSync } from "node:fs";

const TICKS = Number(process.env.CLK_TCK ?? 100);

/** Processor seconds (user + system) process `pid` has used so far, from /proc (Linux). */
export const cpuSecondsOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name in parentheses may hold spaces: the fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
};

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The nearest-rank percentile `p` of ascending `sorted` values (NaN for none). */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number);

/** Runs a benchmark's main: exits 0 when it is done (open handles of the runs left behind do not keep it), 1 with the stack when it fails. */
export const runBench = (main: () => Promise<void>): void => {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
};
