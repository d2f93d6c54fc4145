import { CONTAINER_RUNTIME_ENV } from "./global-setup";

/**
 * Whether suites that need an external server can run: either the server is given (`given` env var,
 * e.g. MONGO_URL) or a container runtime was found by the global setup. Returns the reason when not.
 */
export const externalServerAvailability = (given: string | undefined): { run: boolean; reason: string } => {
  if (given) return { run: true, reason: "server given by environment" };
  const runtime = process.env[CONTAINER_RUNTIME_ENV] ?? "unavailable: not detected (global setup did not run)";
  return runtime === "available" ? { run: true, reason: "container runtime available" } : { run: false, reason: `container runtime ${runtime}` };
};

/** `describe` when the server can run, otherwise `describe.skip` with the reason printed once. */
export const describeWithServer = (title: string, given: string | undefined, body: () => void): void => {
  const { run, reason } = externalServerAvailability(given);
  if (run) {
    describe(title, body);
  } else {
    process.stdout.write(`[containers] SKIPPED "${title}": ${reason}\n`);
    describe.skip(`${title} (skipped: ${reason})`, body);
  }
};
