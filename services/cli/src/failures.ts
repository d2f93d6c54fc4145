import { BackupError } from "@earshot/platform";

// Expected failures: what an operator's command can run into that is not a bug (a file that is not there,
// a directory in use, a database that does not answer, a service's refusal). Each is one line on stderr
// naming the problem, and exit code 1; the commands throw CommandFailed (or an error of their own
// subclass, or the platform's BackupError) and runCli prints it through `failureLine`. Anything else is a
// bug, reported as an unexpected failure.

/** A command that could not be done as asked; its message is the one line to print. */
export class CommandFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandFailed";
  }
}

/** Parts of a message folded into one line: line breaks and runs of spaces become one space. */
export const failureLine = (...parts: string[]): string =>
  parts
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter(Boolean)
    .join(" ");

const REASONS: Record<string, string> = {
  ENOENT: "does not exist",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory",
  ENOTDIR: "a part of the path is not a directory",
  EEXIST: "already exists",
  ENOSPC: "no space left on the device",
  EROFS: "read-only file system",
  EMFILE: "too many open files",
};

/**
 * A file system error as one line naming the path and the reason, or undefined when `err` is not one.
 * Recognized by its fields, not its class: Node's errors may come from another realm (a test runner's).
 */
export const fileProblem = (err: unknown): string | undefined => {
  const e = (typeof err === "object" && err !== null ? err : {}) as Partial<NodeJS.ErrnoException>;
  if (typeof e.code !== "string" || typeof e.syscall !== "string" || !(e.code in REASONS)) return undefined;
  return `${e.path ?? e.syscall}: ${REASONS[e.code]}`;
};

/** What an error says, without the "Error: " String() would put before it. */
export const messageOf = (err: unknown): string =>
  typeof err === "object" && err !== null && typeof (err as Error).message === "string" ? (err as Error).message : String(err);

/** The line an expected failure prints, or undefined for a failure nobody expected. */
export const expectedFailure = (err: unknown): string | undefined => {
  if (err instanceof CommandFailed || err instanceof BackupError) return failureLine(err.message);
  const file = fileProblem(err);
  return file === undefined ? undefined : failureLine(`Cannot go on: ${file}.`);
};
