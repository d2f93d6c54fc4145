export { runCli, parseDuration, EXIT_OK, EXIT_FAILED, EXIT_USAGE, type Io } from "./commands";
export { resolveAccountAddress, UsageError, type Env } from "./config";
